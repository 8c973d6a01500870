"""The macOS Seatbelt profile: the same policy as text (macOS itself cannot run here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.sandbox.policy import SandboxMode, SandboxPolicy
from agent_tui.sandbox.seatbelt import profile, sbpl_string, seatbelt_argv


def _policy(mode: SandboxMode = SandboxMode.WORKSPACE_WRITE) -> SandboxPolicy:
    return SandboxPolicy(
        mode=mode,
        workspace=Path("/Users/me/proj"),
        writable=(Path("/Users/me/out"),),
        deny_read=(Path("/Users/me/.ssh"), Path("/Users/me/.netrc")),
    )


def test_profile_denies_by_default_and_narrows_each_allow_after_it() -> None:
    text = profile(_policy(), private_tmp=Path("/private/tmp/t"), proxy_port=50123)
    lines = text.splitlines()
    assert lines[:2] == ["(version 1)", "(deny default)"]
    read_allow = lines.index("(allow file-read*)")
    read_deny = next(i for i, line in enumerate(lines) if line.startswith("(deny file-read*"))
    assert read_allow < read_deny  # in SBPL the later rule wins
    assert '(subpath "/Users/me/.ssh")' in lines[read_deny]
    write = next(line for line in lines if line.startswith("(allow file-write*"))
    for root in ("/Users/me/proj", "/Users/me/out", "/private/tmp/t"):
        assert f'(subpath "{root}")' in write
    protected = next(line for line in lines if line.startswith("(deny file-write*"))
    for name in (".git/config", ".git/hooks", ".agentrc", ".mcp.json", ".vscode", ".claude"):
        assert f'(subpath "/Users/me/proj/{name}")' in protected
        assert f'(subpath "/Users/me/out/{name}")' in protected
    assert lines.index(write) < lines.index(protected)
    assert '(allow network-outbound (remote tcp "localhost:50123"))' in lines
    assert not any("network-outbound (remote ip" in line for line in lines)


def test_read_only_writes_only_the_temp_dir_and_no_proxy_means_no_network() -> None:
    text = profile(_policy(SandboxMode.READ_ONLY), private_tmp=Path("/t"), proxy_port=None)
    write = next(line for line in text.splitlines() if line.startswith("(allow file-write*"))
    assert '(subpath "/t")' in write and "/Users/me/proj" not in write
    assert "network-outbound" not in text


def test_paths_are_escaped_and_control_characters_refused() -> None:
    assert sbpl_string('a"b\\c') == '"a\\"b\\\\c"'
    with pytest.raises(ValueError, match="control character"):
        sbpl_string("a\nb")


def test_argv_runs_sandbox_exec_with_the_profile() -> None:
    argv = seatbelt_argv(_policy(), ["ls", "-l"], private_tmp=Path("/t"), proxy_port=1)
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"]
    assert argv[2].startswith("(version 1)")
    assert argv[3:] == ["--", "ls", "-l"]
