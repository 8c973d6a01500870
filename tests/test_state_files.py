"""State files never break the app (issue 10 item 8): a damaged file is moved aside with one
notice and the run goes on; a bad .agentrc or an unwritable state dir is one line and exit 2;
everything written to the state dir is private (files 0600, folders 0700).

Each test runs the real ``agent-tui -p`` against the fake LLM server.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from agent_tui.ui.prompt_history import history_path, load_history
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api

WRITE_CALL = {"id": "w1", "name": "create_file", "input": {"path": "out.txt", "content": "x\n"}}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, home=True)


def agent(
    ws: Path, fake: FakeLLM, *args: str, state: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {"AGENT_TUI_STATE_DIR": str(state)} if state else None
    return run_on_api(ws, fake, "anthropic", *args, key="sk-test", model="m", env=env)


def moved_aside(state: Path, name: str) -> list[Path]:
    return sorted(state.glob(f"{name}.corrupt-*"))


DAMAGED_APPROVALS = {
    "grants is a number": b'{"version": 1, "grants": 5}',
    "grants is null": b'{"version": 1, "grants": null}',
    "a list, not an object": b"[]",
    "not UTF-8": b'{"version": 1, "grants": ["\xff\xfe"]}',
    "truncated": b'{"version": 1, "grants": [{"id": "ab',
}


@pytest.mark.parametrize("damage", list(DAMAGED_APPROVALS))
def test_damaged_approvals_file_is_moved_aside_and_approval_still_works(
    ws: Path, fake_llm: FakeLLM, damage: str
) -> None:
    state = ws.parent / "state"
    state.mkdir()
    raw = DAMAGED_APPROVALS[damage]
    (state / "approvals.json").write_bytes(raw)
    fake_llm.set_script([{"tool_calls": [WRITE_CALL]}, {"text": "carried on"}])
    proc = agent(ws, fake_llm, "-p", "write", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "carried on\n"
    assert "internal error" not in proc.stderr + json.dumps(fake_llm.requests)
    assert "declined" in json.dumps(fake_llm.requests[1])  # the normal deny, not a crash
    notices = [line for line in proc.stderr.splitlines() if "approvals.json was damaged" in line]
    assert len(notices) == 1, proc.stderr
    (aside,) = moved_aside(state, "approvals.json")
    assert aside.read_bytes() == raw  # kept for the user, byte for byte
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("damage", ["grants is a number", "not UTF-8"])
def test_listing_approvals_with_a_damaged_file_says_so_and_lists_none(
    ws: Path, fake_llm: FakeLLM, damage: str
) -> None:
    state = ws.parent / "state"
    state.mkdir()
    (state / "approvals.json").write_bytes(DAMAGED_APPROVALS[damage])
    proc = agent(ws, fake_llm, "--list-approvals")
    assert proc.returncode == 0, proc.stderr
    assert "approvals.json was damaged" in proc.stderr and "Traceback" not in proc.stderr
    assert len(moved_aside(state, "approvals.json")) == 1


def test_non_utf8_trust_file_is_moved_aside_at_start(ws: Path, fake_llm: FakeLLM) -> None:
    state = ws.parent / "state"
    state.mkdir()
    (state / "trust.json").write_bytes(b'{"folders": {"/\xe9": {"trusted": true}}}')
    fake_llm.set_script([{"text": "hello"}])
    proc = agent(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello\n"
    assert "trust.json was damaged (not UTF-8)" in proc.stderr
    assert len(moved_aside(state, "trust.json")) == 1 and not (state / "trust.json").exists()


@pytest.mark.parametrize("where", ["workspace", "user"])
@pytest.mark.parametrize(
    ("content", "reason"),
    [(b'[model]\nname = "caf\xe9"\n', "not UTF-8"), (b"[model\n", "not valid TOML")],
)
def test_bad_agentrc_exits_2_naming_the_file_and_reason(
    ws: Path, fake_llm: FakeLLM, where: str, content: bytes, reason: str
) -> None:
    path = ws / ".agentrc" if where == "workspace" else ws.parent / "home" / ".agentrc"
    path.write_bytes(content)
    proc = agent(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 2
    assert str(path) in proc.stderr and reason in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert fake_llm.received == []


def test_state_dir_that_cannot_be_created_is_one_line_exit_2(ws: Path, fake_llm: FakeLLM) -> None:
    blocker = ws.parent / "a-file"
    blocker.write_text("")
    proc = agent(ws, fake_llm, "-p", "hi", state=blocker / "state")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "AGENT_TUI_STATE_DIR" in proc.stderr
    assert str(blocker / "state") in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_state_dir_is_one_line_and_the_answer_comes(ws: Path, fake_llm: FakeLLM) -> None:
    """Issue 22 item 5: the conversation goes on unsaved (a tmpfs variant that runs as root is in
    test_state_dir_failures_e2e.py)."""
    fake_llm.set_script([{"text": "hello"}])
    state = ws.parent / "state"
    state.mkdir(mode=0o500)
    try:
        proc = agent(ws, fake_llm, "-p", "hi")
    finally:
        state.chmod(0o700)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("cannot save") == 1 and "state dir" in proc.stderr


def test_everything_written_to_the_state_dir_is_private(ws: Path, fake_llm: FakeLLM) -> None:
    """Sessions, logs and terminal logs hold the user's code: 0600 files in 0700 folders."""
    run = {"id": "t1", "name": "run_in_terminal", "input": {"command": "echo private-output"}}
    fake_llm.set_script([{"tool_calls": [run]}, {"text": "ran it"}])
    proc = agent(ws, fake_llm, "-p", "run", "--yolo")
    assert proc.returncode == 0, proc.stderr
    state = ws.parent / "state"
    written = [p for p in state.rglob("*") if not p.name.endswith(".lock")]
    names = {p.relative_to(state).parts[0] for p in written}
    assert {"sessions", "logs"} <= names
    assert any(p.name.startswith("terminal-") for p in written)
    modes = {str(p.relative_to(state)): stat.S_IMODE(p.stat().st_mode) for p in [state, *written]}
    wrong = {
        name: oct(mode)
        for name, mode in modes.items()
        if mode != (0o700 if (state / name).is_dir() else 0o600)
    }
    assert wrong == {}


def test_non_utf8_prompt_history_is_moved_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.state_files import take_notices

    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    path = history_path(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b'"ok"\n"\xff"\n')
    take_notices()
    assert load_history(tmp_path) == []
    assert len(list(path.parent.glob("*.corrupt-*"))) == 1
    assert any("not UTF-8" in n for n in take_notices())


def test_logs_left_readable_by_an_older_version_become_private(ws: Path, fake_llm: FakeLLM) -> None:
    logs = ws.parent / "state" / "logs"
    logs.mkdir(parents=True)
    old_log = logs / "agent-tui.log"
    old_log.write_text("earlier run\n")
    old_log.chmod(0o644)
    fake_llm.set_script([{"text": "nope", "fault": {"status": 401}}])  # something gets logged
    proc = agent(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 1
    assert stat.S_IMODE(old_log.stat().st_mode) == 0o600
    assert old_log.read_text().startswith("earlier run\n")  # appended to, not replaced


def test_nested_state_folders_are_private_at_every_level(tmp_path: Path) -> None:
    """mkdir(parents=True) made the missing parents with the umask's 0755 (checkpoints nest four
    deep: checkpoints/<workspace>/<run>/<turn>)."""
    from agent_tui.state_files import private_dir

    deepest = tmp_path / "state" / "checkpoints" / "ws" / "run" / "turn"
    private_dir(deepest)
    for folder in [deepest, *deepest.parents][:5]:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
