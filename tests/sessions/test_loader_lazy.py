"""The loader holds a long session's events by their place in the file, not their bytes, and
reads a turn's back when it is drawn (``LoadedSession.drawable``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_tui import events as ev
from agent_tui.conversation import (
    Conversation,
    Message,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.providers.base import Usage
from agent_tui.sessions import SessionRecorder, SessionStore, load
from agent_tui.sessions.loader import CHUNK_LINES, MessageLine, RawEvent
from agent_tui.sessions.timeline import turns_as_they_stand
from tests.sessions.shapes import record_shape


def test_events_are_kept_by_place_and_read_back_when_drawn(tmp_path: Path) -> None:
    # More lines than one parsing chunk, so the order across chunks is exercised too.
    path = record_shape(tmp_path / "state", tmp_path, turns=60, calls=5)
    loaded = load(path)
    assert len(loaded.entries) > 2 * CHUNK_LINES
    events = [e for e in loaded.entries if isinstance(e, RawEvent)]
    assert {e.kind for e in events if not e.raw} >= {"tool_call_started", "tool_call_finished"}
    assert all(e.raw for e in events if e.kind == "turn_started")  # the timeline reads these
    turns = turns_as_they_stand(loaded.entries)
    assert [t.calls for t in turns] == [5] * 60
    last = turns[-1]
    drawn = loaded.drawable(last.start, last.end)
    started = [d for d in drawn if isinstance(d, ev.ToolCallStarted)]
    assert [d.call_id for d in started] == [f"t59c{n}" for n in range(5)]
    assert started[0].input == {"path": "mod_0.py"}  # put back from the message
    assert any(isinstance(d, ev.TurnFinished) for d in drawn)
    assert len(loaded.conversation.messages) == 60 * (2 + 2 * 5)


def test_a_session_file_gone_after_loading_draws_no_events_and_says_so(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = record_shape(tmp_path / "state", tmp_path, turns=2, calls=1)
    loaded = load(path)
    path.unlink()
    last = turns_as_they_stand(loaded.entries)[-1]
    with caplog.at_level(logging.WARNING):
        drawn = loaded.drawable(last.start, last.end)
    assert not any(isinstance(d, ev.ToolCallStarted) for d in drawn)
    assert any(isinstance(d, ev.TurnStarted) for d in drawn)  # kept in memory: still drawn
    assert caplog.text.count("cannot read its events again") == 1
    assert "skipped" not in caplog.text


def test_the_conversation_is_parsed_after_loading_in_steps_even_from_a_deleted_file(
    tmp_path: Path,
) -> None:
    """``load`` parses no message: the history does, a step at a time, from the file it keeps
    open (deleted meanwhile, the conversation is still read whole)."""
    path = record_shape(tmp_path / "state", tmp_path, turns=100, calls=2)
    whole = [m.to_dict() for m in load(path).conversation.messages]
    loaded = load(path)
    history = loaded.history
    assert history is not None and history.steps == 0 and not history.done
    assert loaded.messages == 100 * (2 + 2 * 2) == len(whole)
    path.unlink()
    assert not history.step(100)  # part of it
    assert [m.to_dict() for m in history.finish().messages] == whole
    assert history.steps > 2


def test_a_message_line_is_read_whatever_its_text_says(tmp_path: Path) -> None:
    """A prompt is told from tool results by a text block; a result whose text holds a text
    block's JSON is still a result (its quotes are escaped in the line). A message line written
    in another key order (edited by hand) is parsed whole, not skipped."""
    store = SessionStore(tmp_path / "state", tmp_path)
    recorder = SessionRecorder(store.create("m"))
    conv = Conversation()
    recorder.record(ev.TurnStarted("look"), conv)
    conv.append_user(user_text("look"))
    conv.append(Message("assistant", [ToolUseBlock("c1", "read_file", {"type": "text"})]))
    recorder.record(ev.UsageUpdated(Usage(), Usage(), None), conv)
    conv.append_user(Message("user", [ToolResultBlock("c1", 'x{"text":"y","type":"text"}')]))
    recorder.record(ev.UsageUpdated(Usage(), Usage(), None), conv)
    recorder.close()
    path = recorder.writer.path
    reordered = {"message": {"content": [{"text": "by hand", "type": "text"}], "role": "user"}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**reordered, "type": "message"}) + "\n")
    loaded = load(path)
    lines = [e for e in loaded.entries if isinstance(e, MessageLine)]
    assert [(m.role, m.prompt) for m in lines] == [
        ("user", True),
        ("assistant", False),
        ("user", False),  # the result, not a prompt
        ("user", True),  # the line written by hand
    ]
    texts = [m.text for m in loaded.conversation.messages]
    assert texts == ["look", "", "", "by hand"]


def test_a_kept_event_line_holding_two_values_does_not_stop_the_walk(tmp_path: Path) -> None:
    path = record_shape(tmp_path / "state", tmp_path, turns=2, calls=1)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"type":"event","event":"turn_started","text":"odd"},{"x":1}\n')
    turns = turns_as_they_stand(load(path).entries)
    assert [t.prompt[:10] for t in turns[:2]] == ["question 0", "question 1"]
    assert len(turns) == 3 and turns[2].prompt == ""  # the odd line: a turn with no text read
