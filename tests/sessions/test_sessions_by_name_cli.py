"""Real processes: ``/rename`` and ``--resume NAME`` under ``-p``, an ambiguous name (listed,
exit 2), ``--fork``, and ``agent-tui export ID|NAME`` in its three formats."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import lxml.html
import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_cli
from tests.sessions.test_headless_sessions import (
    request_texts,
    result_of,
    run,
    session_files,
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"notes.txt": "the-notes-text-77\n"})


def export(ws: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``agent-tui export ARGS`` in ``ws`` with the state dir ``run`` uses (no model involved)."""
    env = {"AGENT_TUI_STATE_DIR": str(ws.parent / "state"), "HOME": str(ws.parent / "home")}
    return run_cli(ws, "export", *args, env=env, timeout=60)


def _json(ws: Path, fake: FakeLLM, *args: str) -> dict[str, object]:
    proc = run(ws, fake, *args, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    return result_of(proc)


def test_rename_then_resume_by_name_prefix_and_an_ambiguous_name(
    ws: Path,
    fake_llm: FakeLLM,
) -> None:
    fake_llm.set_script([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    first = _json(ws, fake_llm, "-p", "alpha question\nwith detail")["session_id"]
    renamed = _json(ws, fake_llm, "-p", "/rename Login flow", "--resume", str(first))
    assert "Login flow" in str(renamed["result"])
    _json(ws, fake_llm, "-p", "another question")
    _json(ws, fake_llm, "-p", "/rename login page", "-c")
    both = run(ws, fake_llm, "-p", "again", "--resume", "login")
    assert both.returncode == 2
    assert "names 2 sessions" in both.stderr
    assert "Login flow" in both.stderr and "login page" in both.stderr
    back = _json(ws, fake_llm, "-p", "back to it", "--resume", "login f")
    assert back["session_id"] == first
    sent = request_texts(fake_llm.requests[-1])
    assert any("alpha question" in t for t in sent)
    assert not any("another question" in t for t in sent)
    missing = run(ws, fake_llm, "-p", "x", "--resume", "no such name")
    assert missing.returncode == 2 and "no session 'no such name'" in missing.stderr


def test_fork_continues_a_copy_and_leaves_the_original(
    ws: Path,
    fake_llm: FakeLLM,
) -> None:
    fake_llm.set_script([{"text": "first answer"}, {"text": "fork answer"}])
    first = _json(ws, fake_llm, "-p", "the original topic")["session_id"]
    [original] = session_files(ws)
    before = original.read_bytes()
    forked = _json(ws, fake_llm, "-p", "go on apart", "-c", "--fork")["session_id"]
    assert forked != first and original.read_bytes() == before
    copy = next(p for p in session_files(ws) if p.stem == forked)
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    assert lines[0]["forked_from"] == first
    assert [m["name"] for m in lines if m["type"] == "meta"] == ["the original topic (fork)"]
    assert any("the original topic" in t for t in request_texts(fake_llm.requests[-1]))
    alone = run(ws, fake_llm, "-p", "x", "--fork")
    assert alone.returncode == 2 and "--fork goes with" in alone.stderr


def test_export_by_name_in_each_format(
    ws: Path,
    fake_llm: FakeLLM,
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}]},
            {"text": "It says <script>alert(1)</script> and the-notes-text-77."},
        ]
    )
    sid = _json(ws, fake_llm, "-p", "read notes.txt")["session_id"]
    _json(ws, fake_llm, "-p", "/rename notes review", "-c")
    out = ws.parent / "out.html"
    html = export(ws, "notes rev", "--format", "html", "-o", str(out))
    assert html.returncode == 0, html.stderr
    page = lxml.html.document_fromstring(out.read_text())
    assert page.xpath("//script") == [] and page.xpath("//title")[0].text == "notes review"
    [call] = page.xpath("//details")
    assert "the-notes-text-77" in call.text_content()  # the read's output, folded
    assert "<script>alert(1)</script>" in page.xpath("//div[@class='answer']")[0].text_content()
    md = export(ws, str(sid))
    assert md.returncode == 0 and md.stdout.startswith("# notes review\n")
    assert "<details>" in md.stdout and "&lt;script>" in md.stdout
    body = json.loads(export(ws, "notes", "--format", "json").stdout)
    assert body["id"] == sid and body["name"] == "notes review"
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user", "assistant"]
    wrote = _json(ws, fake_llm, "-p", "/export notes.md", "-c")  # the command under -p
    assert "notes.md" in str(wrote["result"])
    assert (ws / "notes.md").read_text() == export(ws, sid).stdout
    _json(ws, fake_llm, "-p", "/rename notes two", "--fork", "-c")
    several = export(ws, "notes")
    assert several.returncode == 2 and "export: 'notes' names 2 sessions" in several.stderr
    unknown = export(ws, "nothing like it")
    assert unknown.returncode == 2 and "no session" in unknown.stderr
