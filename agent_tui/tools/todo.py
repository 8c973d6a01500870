"""todo: the model's todo list for a task of several steps, which the person sees live.

The model sends the whole list each time (Claude Code's TodoWrite, Codex's update_plan), so no
call depends on an earlier one and the last list sent is the list. It changes no file, so its
manifest is read-only: it never asks, in any mode (plan mode's plan can become the list). The
list lives on the session state (``TODO_KEY``) and reaches the front ends as a ``TodoUpdated``
event, which the session file keeps: a resumed session restores the last one
(``agent/resume.py``).

``/rewind`` rolls the list back with the conversation: each change is kept with the number of
messages the conversation had when it was made (``HISTORY_KEY``), so rewinding to message ``to``
leaves the last list sent while the conversation was no longer than that. A resumed session
rebuilds the same history from its file (``sessions/timeline.py``: the changes of the turns
that still stand).
"""

from __future__ import annotations

from typing import Any

from agent_tui import events as ev
from agent_tui.errors import ToolError
from agent_tui.text_safety import one_line
from agent_tui.tools.base import BaseTool, Prepared, SessionState, ToolContext, ToolResult

TODO_KEY = "todo"  # session.extras key: the list as last sent, a tuple of events.TodoItem
# session.extras key: each list sent with how many messages the conversation had then (History)
HISTORY_KEY = "todo.history"
History = tuple[tuple[int, tuple[ev.TodoItem, ...]], ...]
NOTE_MARK = "<agent-tui-todo>"
NOTE_ITEMS = 10  # open items the reminder names at most


def current(session: SessionState) -> tuple[ev.TodoItem, ...]:
    """The list as the model last sent it (empty before it sent one)."""
    items: tuple[ev.TodoItem, ...] = session.extras.get(TODO_KEY, ())
    return items


def restore_todo(
    session: SessionState, items: tuple[ev.TodoItem, ...], history: History = ()
) -> None:
    """Put back a list kept aside (a resumed session's, a cleared conversation's) and the
    changes that led to it (what ``/rewind`` rolls back to)."""
    if items:
        session.extras[TODO_KEY] = items
    else:
        session.extras.pop(TODO_KEY, None)
    session.extras[HISTORY_KEY] = history


def changes(session: SessionState) -> History:
    """The lists sent in this conversation, each with its message count then."""
    kept: History = session.extras.get(HISTORY_KEY, ())
    return kept


def note_change(session: SessionState, messages: int, items: tuple[ev.TodoItem, ...]) -> None:
    """The model sent ``items`` when the conversation had ``messages`` messages."""
    session.extras[HISTORY_KEY] = (*changes(session), (messages, items))


def rewind_todo(session: SessionState, to: int) -> None:
    """The list as it stood when the conversation had ``to`` messages (``/rewind`` to ``to``)."""
    kept = tuple(change for change in changes(session) if change[0] <= to)
    restore_todo(session, kept[-1][1] if kept else (), kept)


def shift_counts(counts: list[int], upto: int, merged: bool) -> list[int]:
    """Message counts after a compaction replaced ``messages[:upto]`` by one summary (``merged``:
    put in front of the first kept message, as ``Conversation.compact`` does for a user one).
    A change made within the summarised part counts as made before every kept message."""
    extra = 0 if merged else 1
    return [count - upto + extra if count > upto else 0 for count in counts]


def compacted(session: SessionState, upto: int, merged: bool) -> None:
    """Keep the history's counts in step with a compaction of the conversation."""
    kept = changes(session)
    counts = shift_counts([count for count, _ in kept], upto, merged)
    session.extras[HISTORY_KEY] = tuple(zip(counts, (items for _, items in kept), strict=True))


def open_items(items: tuple[ev.TodoItem, ...]) -> list[ev.TodoItem]:
    return [item for item in items if item.status != "completed"]


def parse_items(input: dict[str, Any]) -> tuple[ev.TodoItem, ...]:
    """The list from a call's input (the schema has checked its shape).

    Raises:
        ToolError: an item's text is blank, or more than one item is in progress.
    """
    items = tuple(
        ev.TodoItem(str(item["content"]).strip(), str(item["status"])) for item in input["items"]
    )
    if any(not item.content for item in items):
        raise ToolError("An item's `content` is blank: say what the step is.")
    if sum(item.status == "in_progress" for item in items) > 1:
        raise ToolError(
            "More than one item is in_progress: keep one in progress at a time "
            "(the others pending or completed) and send the whole list again."
        )
    return items


def summary(items: tuple[ev.TodoItem, ...]) -> str:
    """``"2 of 5 done; now: Write the tests"`` (what the model reads back)."""
    if not items:
        return "The todo list is empty."
    done = len(items) - len(open_items(items))
    now = next((item.content for item in items if item.status == "in_progress"), "")
    return f"{done} of {len(items)} done" + (f"; now: {one_line(now)[:120]}" if now else "")


def reminder(items: tuple[ev.TodoItem, ...]) -> str | None:
    """The note for the next prompt when items are still open (None: nothing open)."""
    left = open_items(items)
    if not left:
        return None
    named = "\n".join(f"- [{item.status}] {one_line(item.content)}" for item in left[:NOTE_ITEMS])
    more = f"\n… and {len(left) - NOTE_ITEMS} more" if len(left) > NOTE_ITEMS else ""
    return (
        f"{NOTE_MARK}\nYour todo list still has {len(left)} open item(s):\n{named}{more}\n"
        "Keep it up to date with `todo`; drop items that no longer apply.\n</agent-tui-todo>"
    )


class TodoTool(BaseTool):
    """Replace the todo list with the one sent."""

    name = "todo"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        items = parse_items(input)
        return Prepared(
            invocation_message="Updating the todo list",
            past_tense_message=f"Updated the todo list ({summary(items)})",
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        items = parse_items(input)
        ctx.session.extras[TODO_KEY] = items
        if ctx.on_event is not None:
            ctx.on_event(ev.TodoUpdated(items))
        return ToolResult(f"Todo list saved: {summary(items)}.")
