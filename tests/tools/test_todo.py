"""The todo tool: the whole list each time, one item in progress, kept on the session state."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui import events as ev
from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import builtin_registry
from agent_tui.tools.todo import (
    changes,
    compacted,
    current,
    note_change,
    reminder,
    rewind_todo,
    shift_counts,
)


def _context(tmp_path: Path, seen: list[ev.Event]) -> ToolContext:
    return ToolContext(tmp_path, SessionState(), on_event=seen.append)


def _items(*pairs: tuple[str, str]) -> dict[str, object]:
    return {"items": [{"content": c, "status": s} for c, s in pairs]}


async def test_the_list_sent_replaces_the_last_and_is_reported(tmp_path: Path) -> None:
    tool = builtin_registry().get("todo")
    seen: list[ev.Event] = []
    ctx = _context(tmp_path, seen)
    await tool.invoke(_items(("Read", "in_progress"), ("Fix", "pending")), ctx)

    result = await tool.invoke(_items(("Read", "completed"), ("Fix", "in_progress")), ctx)

    expected = (ev.TodoItem("Read", "completed"), ev.TodoItem("Fix", "in_progress"))
    assert current(ctx.session) == expected
    assert seen[-1] == ev.TodoUpdated(expected)
    assert result.content == "Todo list saved: 1 of 2 done; now: Fix."
    assert list(tmp_path.iterdir()) == []  # it touches no file


async def test_two_items_in_progress_are_refused_and_the_list_kept(tmp_path: Path) -> None:
    tool = builtin_registry().get("todo")
    seen: list[ev.Event] = []
    ctx = _context(tmp_path, seen)
    await tool.invoke(_items(("A", "in_progress")), ctx)

    with pytest.raises(ToolError, match="one in progress at a time"):
        await tool.invoke(_items(("A", "in_progress"), ("B", "in_progress")), ctx)
    with pytest.raises(ToolError, match="blank"):
        await tool.invoke(_items(("   ", "pending")), ctx)

    assert current(ctx.session) == (ev.TodoItem("A", "in_progress"),)
    assert len(seen) == 1


def test_the_reminder_names_open_items_only_and_none_when_all_are_done() -> None:
    items = (ev.TodoItem("Done", "completed"), ev.TodoItem("Next\x1b[2J", "pending"))

    note = reminder(items)

    assert note is not None
    assert "1 open item" in note and "- [pending] Next" in note
    assert "Done" not in note and "\x1b" not in note
    assert reminder((ev.TodoItem("Done", "completed"),)) is None
    assert reminder(()) is None


def test_the_manifest_is_read_only_so_it_never_asks() -> None:
    manifest = builtin_registry().manifest("todo")

    assert manifest.kind == "read" and manifest.read_only


def _list(name: str) -> tuple[ev.TodoItem, ...]:
    return (ev.TodoItem(name, "in_progress"),)


def test_rewind_leaves_the_list_sent_before_the_prompt_rewound_to() -> None:
    session = SessionState()
    note_change(session, 2, _list("first"))  # sent in the turn whose prompt is message 0
    note_change(session, 6, _list("second"))  # in the turn whose prompt is message 4
    note_change(session, 8, _list("third"))
    rewind_todo(session, 4)  # back to the second turn's prompt
    assert current(session) == _list("first")
    assert [count for count, _ in changes(session)] == [2]
    rewind_todo(session, 0)
    assert current(session) == () and changes(session) == ()


def test_a_compaction_moves_the_counts_with_the_messages() -> None:
    # 10 messages; the summary replaces the first 6 and goes in front of message 6 (a user one).
    assert shift_counts([2, 6, 7, 10], 6, merged=True) == [0, 0, 1, 4]
    # an assistant message kept first: the summary is a message of its own
    assert shift_counts([2, 7], 6, merged=False) == [0, 2]
    session = SessionState()
    note_change(session, 2, _list("old"))
    note_change(session, 8, _list("new"))
    compacted(session, 6, merged=True)
    rewind_todo(session, 1)  # the prompt now at index 1 (was 7): before "new" was sent
    assert current(session) == _list("old")
