"""The loader holds a long session's events by their place in the file, not their bytes, and
reads a turn's back when it is drawn (``LoadedSession.drawable``)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from agent_tui import events as ev
from agent_tui.sessions import load
from agent_tui.sessions.loader import CHUNK_LINES, RawEvent
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
