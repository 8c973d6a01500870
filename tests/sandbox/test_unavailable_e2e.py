"""Without bwrap the sandbox fails closed and says so; `/sandbox` shows the policy (real `-p` runs)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake


def _path_without_bwrap(tmp_path: Path) -> str:
    """A PATH with what the run needs (shell, coreutils' touch, git) and no bwrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "sh", "touch", "git", "ls"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


def _run(tmp_path: Path, fake: FakeLLM, rc: str, *flags: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(rc)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    fake.set_script(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "run_in_terminal", "input": {"command": "touch made.txt"}}
                ]
            },
            {"text": "done"},
        ]
    )
    env = {"PATH": _path_without_bwrap(tmp_path), "AGENT_TUI_USER_CONFIG": str(home / ".agentrc")}
    return run_on_fake(
        ws,
        fake,
        "-p",
        "go",
        "--output-format",
        "stream-json",
        *flags,
        home=home,
        state=tmp_path / "state",
        env=env,
    )


def _decided(proc: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return [(e["step"], e["reason"]) for e in events if e.get("type") == "tool_call_decided"]


def test_without_bwrap_a_notice_says_so_and_commands_ask(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proc = _run(tmp_path, fake_llm, "", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert "Sandbox unavailable: bwrap (bubblewrap) is not installed" in proc.stderr
    assert "apt-get install bubblewrap" in proc.stderr
    assert _decided(proc)[0][0] == "user"  # it asked, and the policy answered deny
    assert not (tmp_path / "ws" / "made.txt").exists()


def test_required_refuses_commands_even_under_yolo(tmp_path: Path, fake_llm: FakeLLM) -> None:
    proc = _run(tmp_path, fake_llm, "[sandbox]\nrequired = true\n", "--yolo")
    assert proc.returncode == 0, proc.stderr
    step, reason = _decided(proc)[0]
    assert step == "sandbox" and "required = true" in reason
    assert not (tmp_path / "ws" / "made.txt").exists()


def test_slash_sandbox_shows_the_policy(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    rc = tmp_path / "rc"
    rc.write_text('[sandbox]\nallow_domains = ["pypi.org"]\ndeny_read = ["~/private"]\n')
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "/sandbox",
        home=tmp_path,
        state=tmp_path / "state",
        env={"AGENT_TUI_USER_CONFIG": str(rc)},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Sandbox: workspace-write" in out
    assert "~/.ssh" in out and "~/private" in out
    assert "Writes: ~/ws, and a private temp dir" in out  # HOME is tmp_path here
    assert "Network: through the proxy to allowed domains (pypi.org)" in out
    assert fake_llm.requests == []  # a command, not a prompt


def test_the_flag_and_the_environment_choose_the_mode(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    flagged = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "/sandbox",
        "--sandbox",
        "read-only",
        home=tmp_path,
        state=tmp_path / "state",
    )
    assert "Sandbox: read-only" in flagged.stdout
    assert "Writes: only a private temp dir" in flagged.stdout
    off = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "/sandbox",
        home=tmp_path,
        state=tmp_path / "state",
        env={"AGENT_TUI_SANDBOX": "off"},
    )
    assert "Sandbox: off" in off.stdout
