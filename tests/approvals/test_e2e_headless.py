"""`agent-tui -p` with the fake model: denials reach the model and the turn goes on; rules run
commands; a chain with one disallowed part is not auto-approved (issue 4, "Done when")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, new_workspace

# The approval policy's answers for commands outside the sandbox (inside, they run unasked).
pytestmark = pytest.mark.usefixtures("unsandboxed")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"keep.txt": "keep me\n"}, home=True)


def _user_rc(ws: Path, text: str) -> None:
    (ws.parent / "home" / ".agentrc").write_text(text)


def _run(ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    env = clean_env(
        {
            "AGENT_TUI_STATE_DIR": str(ws.parent / "state"),
            "HOME": str(ws.parent / "home"),
            "ANTHROPIC_API_KEY": "sk-test",
        }
    )
    cmd = [sys.executable, "-m", "agent_tui", "--provider", "anthropic", "--base-url", fake.url,
           "--model", "test-model", *args]  # fmt: skip
    return subprocess.run(
        cmd, cwd=ws, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
    )


def _terminal_call(command: str) -> dict[str, object]:
    call = {"id": "call_1", "name": "run_in_terminal", "input": {"command": command}}
    return {"tool_calls": [call]}


def _events(proc: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def test_denied_command_does_not_run_and_the_model_hears_why(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "Understood, skipped it."}])
    proc = _run(ws, fake_llm, "-p", "make a file", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Understood, skipped it."
    assert not (ws / "ran.txt").exists()
    second = json.dumps(fake_llm.requests[1])
    assert "declined to run this tool call" in second  # the denial reached the model
    assert "Their reason:" in second  # and why (the headless policy's reason)


def test_no_tty_never_waits_and_denies(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "ok"}])
    proc = _run(ws, fake_llm, "-p", "make a file")  # default policy, stdin is not a TTY
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "ran.txt").exists()


def test_a_rule_runs_the_command(ws: Path, fake_llm: FakeLLM) -> None:
    _user_rc(ws, '[tools.terminal.auto_approve]\n"touch ran.txt" = true\n')
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "done"}])
    proc = _run(ws, fake_llm, "-p", "make a file", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "ran.txt").exists()
    decided = [e for e in _events(proc) if e["type"] == "tool_call_decided"]
    assert decided[0]["allowed"] is True and decided[0]["step"] == "setting"
    assert decided[0]["reason"] == "allowed: rule `touch ran.txt` in ~/.agentrc"


def test_a_chain_with_one_disallowed_part_is_not_auto_approved(ws: Path, fake_llm: FakeLLM) -> None:
    _user_rc(ws, '[tools.terminal.auto_approve]\n"touch" = true\n')
    fake_llm.set_script([_terminal_call("touch ran.txt && rm keep.txt"), {"text": "ok"}])
    proc = _run(ws, fake_llm, "-p", "go", "--on-approval", "deny", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "keep.txt").exists() and not (ws / "ran.txt").exists()
    asked = [e for e in _events(proc) if e["type"] == "approval_requested"]
    assert "`rm keep.txt` matches no terminal rule or grant" in json.dumps(asked[0]["verdict"])


def test_on_approval_fail_exits_3(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "never"}])
    proc = _run(ws, fake_llm, "-p", "go", "--on-approval", "fail")
    assert proc.returncode == 3
    assert "run_in_terminal" in proc.stderr
    assert not (ws / "ran.txt").exists()


def test_untrusted_workspace_rule_is_ignored_with_a_warning(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agentrc").write_text("[tools]\nauto_approve = true\n")
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "ok"}])
    proc = _run(ws, fake_llm, "-p", "go", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "ran.txt").exists()
    assert "not trusted" in proc.stderr
    fake_llm.set_script([_terminal_call("touch ran.txt"), {"text": "ok"}])
    trusted = _run(ws, fake_llm, "-p", "go", "--trust")
    assert trusted.returncode == 0, trusted.stderr
    assert (ws / "ran.txt").exists()
