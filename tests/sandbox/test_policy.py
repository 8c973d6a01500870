"""The policy: defaults, what the config adds, and domain matching."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.config import load_config
from agent_tui.sandbox.policy import SandboxMode, build_policy, domain_allowed


def test_defaults_hide_credentials_state_and_user_config(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    policy = build_policy(None, ws)
    home = Path.home().resolve()
    assert policy.mode is SandboxMode.WORKSPACE_WRITE
    for name in (".ssh", ".aws", ".gnupg", ".config/gcloud", ".docker/config.json", ".netrc"):
        assert home / name in policy.deny_read, name
    state = Path(__import__("os").environ["AGENT_TUI_STATE_DIR"]).resolve()
    assert state in policy.deny_read  # grants, trust and tokens
    assert policy.write_roots() == (ws.resolve(),)
    assert ws.resolve() / ".git/hooks" in policy.protected()


def test_config_extends_the_lists_and_the_flag_wins(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "out").mkdir(parents=True)
    rc = tmp_path / "rc"
    rc.write_text(
        '[sandbox]\nmode = "read-only"\nwritable = ["out", "/tmp/x"]\n'
        'deny_read = ["~/secrets"]\nallow_domains = ["pypi.org", "*.npmjs.org"]\nask = true\n'
    )
    config = load_config(ws, cli={}, user_file=rc)
    policy = build_policy(config, ws)
    assert policy.mode is SandboxMode.READ_ONLY
    assert policy.write_roots() == ()  # read-only: nothing but the temp dir
    assert policy.ask
    assert Path.home().resolve() / "secrets" in policy.deny_read
    assert policy.allow_domains == ("pypi.org", "*.npmjs.org")
    flagged = build_policy(config, ws, mode="workspace-write")
    assert flagged.write_roots() == (ws.resolve(), ws.resolve() / "out", Path("/tmp/x"))


def test_an_untrusted_workspace_cannot_switch_the_sandbox_off(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".agentrc").write_text('[sandbox]\nmode = "off"\nallow_domains = ["evil.example"]\n')
    config = load_config(ws, cli={}, trusted=False)
    policy = build_policy(config, ws)
    assert policy.mode is SandboxMode.WORKSPACE_WRITE
    assert policy.allow_domains == ()
    assert "sandbox" in config.ignored_untrusted


@pytest.mark.parametrize(
    ("host", "patterns", "allowed"),
    [
        ("pypi.org", ["pypi.org"], True),
        ("PyPI.org.", ["pypi.org"], True),
        ("files.pypi.org", ["pypi.org"], False),
        ("files.pypi.org", ["*.pypi.org"], True),
        ("pypi.org", ["*.pypi.org"], False),
        ("evilpypi.org", ["*.pypi.org"], False),
        ("pypi.org.evil.com", ["pypi.org"], False),
        ("127.0.0.1", ["pypi.org"], False),
        ("127.0.0.1", ["127.0.0.1"], True),
    ],
)
def test_domain_matching(host: str, patterns: list[str], allowed: bool) -> None:
    assert domain_allowed(host, patterns) is allowed
