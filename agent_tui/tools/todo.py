"""todo: the model's todo list for a task of several steps, which the person sees live.

The model sends the whole list each time (Claude Code's TodoWrite, Codex's update_plan), so no
call depends on an earlier one and the last list sent is the list. It changes no file, so its
manifest is read-only: it never asks, in any mode (plan mode's plan can become the list). The
list lives on the session state (``TODO_KEY``) and reaches the front ends as a ``TodoUpdated``
event, which the session file keeps: a resumed session restores the last one
(``agent/resume.py``).
"""

from __future__ import annotations

from typing import Any

from agent_tui import events as ev
from agent_tui.errors import ToolError
from agent_tui.text_safety import one_line
from agent_tui.tools.base import BaseTool, Prepared, SessionState, ToolContext, ToolResult

TODO_KEY = "todo"  # session.extras key: the list as last sent, a tuple of events.TodoItem
NOTE_MARK = "<agent-tui-todo>"
NOTE_ITEMS = 10  # open items the reminder names at most


def current(session: SessionState) -> tuple[ev.TodoItem, ...]:
    """The list as the model last sent it (empty before it sent one)."""
    items: tuple[ev.TodoItem, ...] = session.extras.get(TODO_KEY, ())
    return items


def restore_todo(session: SessionState, items: tuple[ev.TodoItem, ...]) -> None:
    """Put back a list kept aside (a resumed session's, a cleared conversation's)."""
    if items:
        session.extras[TODO_KEY] = items
    else:
        session.extras.pop(TODO_KEY, None)


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
