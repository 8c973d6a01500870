"""Sessions headless (issue 12 §1-2): every ``-p`` run is saved as JSONL as it happens, and
``--continue`` / ``--resume ID`` carry the earlier conversation into the next request."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_cli

KEY = "sk-marker-SESSIONKEY-0451"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"notes.txt": "the-notes-text-77\n"})


def run(ws: Path, fake: FakeLLM, *args: str, key: str = KEY) -> subprocess.CompletedProcess[str]:
    env = {
        "AGENT_TUI_STATE_DIR": str(ws.parent / "state"),
        "HOME": str(ws.parent / "home"),
        "ANTHROPIC_API_KEY": key,
    }
    flags = ["--provider", "anthropic", "--base-url", fake.url, "--model", "test-model"]
    return run_cli(ws, *flags, *args, env=env, timeout=60)


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(proc.stdout.strip().splitlines()[-1])


def session_files(ws: Path) -> list[Path]:
    return sorted((ws.parent / "state" / "sessions").glob("*/*.jsonl"))


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def request_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["messages"]:
        content = message["content"]
        if isinstance(content, str):
            texts.append(content)
            continue
        for block in content:
            texts.append(str(block.get("text") or block.get("content") or ""))
    return texts


def test_a_run_is_saved_and_continue_carries_it_into_the_next_request(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}]},
            {"text": "The notes say the-notes-text-77."},
            {"text": "You asked about the notes."},
        ]
    )
    first = run(ws, fake_llm, "-p", "read notes.txt", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    session_id = result_of(first)["session_id"]
    [path] = session_files(ws)
    assert path.stem == session_id
    lines = lines_of(path)
    header = lines[0]
    assert header["type"] == "session" and header["id"] == session_id
    assert header["workspace"] == str(ws.resolve()) and header["title"] == "read notes.txt"
    assert [m["message"]["role"] for m in lines if m["type"] == "message"] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    decided = [m for m in lines if m.get("event") == "tool_call_decided"]
    assert decided and decided[0]["step"]  # the approval's provenance

    second = run(ws, fake_llm, "-p", "what did I ask?", "-c", "--output-format", "json")
    assert second.returncode == 0, second.stderr
    assert result_of(second)["session_id"] == session_id  # the same session, appended to
    assert session_files(ws) == [path]
    sent = request_texts(fake_llm.requests[-1])
    assert any("read notes.txt" in t for t in sent)
    assert any("the-notes-text-77" in t for t in sent)  # the tool result, in full
    assert sent[-1].startswith("what did I ask?")
    again = lines_of(path)
    assert again[: len(lines)] == lines  # appended, never rewritten
    assert sum(1 for m in again if m["type"] == "message") == 6


def test_resume_by_id_appends_to_that_session(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    first = result_of(run(ws, fake_llm, "-p", "first topic", "--output-format", "json"))
    run(ws, fake_llm, "-p", "second topic", "--output-format", "json")
    assert len(session_files(ws)) == 2
    third = run(
        ws, fake_llm, "-p", "back", "--resume", first["session_id"], "--output-format", "json"
    )
    assert third.returncode == 0, third.stderr
    assert result_of(third)["session_id"] == first["session_id"]
    sent = request_texts(fake_llm.requests[-1])
    assert any("first topic" in t for t in sent)
    assert not any("second topic" in t for t in sent)


def test_resume_refuses_another_workspace_and_bad_ids(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "saved elsewhere"}])
    other = ws.parent / "other"
    other.mkdir()
    saved = result_of(run(other, fake_llm, "-p", "elsewhere", "--output-format", "json"))
    proc = run(ws, fake_llm, "-p", "next", "--resume", saved["session_id"])
    assert proc.returncode == 2
    assert "another workspace" in proc.stderr
    for bad in ("../other", "nope-123", "x/../../etc"):
        proc = run(ws, fake_llm, "-p", "next", "--resume", bad)
        assert proc.returncode == 2, bad
    proc = run(ws, fake_llm, "-p", "next", "--resume")
    assert proc.returncode == 2 and "--resume needs a session id" in proc.stderr
    proc = run(other, fake_llm, "-p", "next", "--resume")
    assert saved["session_id"] in proc.stderr  # the list hint names the sessions there
    proc = run(ws, fake_llm, "-p", "next", "--continue")
    assert proc.returncode == 2 and "no saved session" in proc.stderr
    assert len(fake_llm.requests) == 1  # none of the refused runs reached the model


def test_torn_last_line_is_ignored_on_resume(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "kept answer"}, {"text": "after the crash"}])
    run(ws, fake_llm, "-p", "before the crash")
    [path] = session_files(ws)
    with path.open("a") as fh:  # a crash in the middle of writing a line
        fh.write('{"type":"message","message":{"role":"user","content":[{"type":"te')
    proc = run(ws, fake_llm, "-p", "after", "-c")
    assert proc.returncode == 0, proc.stderr
    sent = request_texts(fake_llm.requests[-1])
    assert sent[:2] == ["before the crash", "kept answer"] and sent[-1] == "after"


def test_marker_key_is_never_written_and_files_are_private(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}]},
            {"text": "done"},
            {"text": "again"},
        ]
    )
    run(ws, fake_llm, "-p", "read it")
    run(ws, fake_llm, "-p", "more", "-c")
    state = ws.parent / "state"
    for path in state.rglob("*"):
        if path.is_file():
            assert b"SESSIONKEY" not in path.read_bytes(), path
    [path] = session_files(ws)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.parent.parent.stat().st_mode) == 0o700


def test_old_sessions_beyond_keep_are_deleted(ws: Path, fake_llm: FakeLLM) -> None:
    home = ws.parent / "home"
    home.mkdir()
    (home / ".agentrc").write_text("[sessions]\nkeep = 2\n")
    fake_llm.set_script([{"text": f"answer {n}"} for n in range(4)])
    ids = []
    for n in range(4):
        proc = run(ws, fake_llm, "-p", f"prompt {n}", "--output-format", "json")
        assert proc.returncode == 0, proc.stderr
        ids.append(result_of(proc)["session_id"])
        for path in session_files(ws):  # distinct ages, whatever the clock's resolution
            os.utime(path, (1_000_000 + ids.index(path.stem), 1_000_000 + ids.index(path.stem)))
    # Pruned when a run starts, making room for it: the newest two remain.
    assert [p.stem for p in session_files(ws)] == sorted(ids[2:])


def test_keep_days_deletes_sessions_not_written_since(ws: Path, fake_llm: FakeLLM) -> None:
    home = ws.parent / "home"
    home.mkdir()
    (home / ".agentrc").write_text("[sessions]\nkeep_days = 30\n")
    fake_llm.set_script([{"text": "old"}, {"text": "new"}])
    run(ws, fake_llm, "-p", "old one")
    [old] = session_files(ws)
    os.utime(old, (1_000_000, 1_000_000))  # 1970: far older than 30 days
    run(ws, fake_llm, "-p", "new one")
    assert [p for p in session_files(ws) if p == old] == []
    assert len(session_files(ws)) == 1


def test_workspace_agentrc_cannot_shorten_retention(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agentrc").write_text("[sessions]\nkeep = 1\n")
    fake_llm.set_script([{"text": "a"}, {"text": "b"}])
    run(ws, fake_llm, "-p", "one", "--trust")
    run(ws, fake_llm, "-p", "two", "--trust")
    assert len(session_files(ws)) == 2
