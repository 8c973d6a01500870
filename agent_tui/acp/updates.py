"""The core's events as ACP ``session/update`` payloads: pure functions, no I/O.

A tool call becomes a ``tool_call`` as it starts (kind, title, locations, and for an edit the diff
as old and new text, so an editor can show it in the approval), then ``tool_call_update``s as it
is decided and finished (status, the command's output or the tool's result). Every string that
came from the model, a tool or the workspace is made visible (``text_safety``) before it leaves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from agent_tui import events as ev
from agent_tui.text_safety import one_line, visible

if TYPE_CHECKING:
    from acp.helpers import ToolCallContentVariant
    from acp.schema import (
        AgentMessageChunk,
        AgentPlanUpdate,
        AgentThoughtChunk,
        ToolCallLocation,
        ToolCallProgress,
        ToolCallStart,
        ToolCallUpdate,
        UsageUpdate,
    )

ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
# The manifests' kinds (tools/*.json) are ACP's words; search tools are "read" there.
_SEARCH_TOOLS = {"grep_search", "file_search"}
_KINDS: set[str] = {"read", "edit", "delete", "move", "execute", "think", "fetch", "switch_mode"}
# What one tool_call_update carries of a result: an editor shows it, the model has it whole.
MAX_SHOWN_OUTPUT = 20_000


def message_chunk(text: str) -> AgentMessageChunk:
    from acp import update_agent_message_text

    return update_agent_message_text(visible(text))


def thought_chunk(text: str) -> AgentThoughtChunk:
    from acp import update_agent_thought_text

    return update_agent_thought_text(visible(text))


def tool_kind(name: str, kind: str) -> ToolKind:
    if name in _SEARCH_TOOLS:
        return "search"
    return kind if kind in _KINDS else "other"  # type: ignore[return-value]


def tool_title(name: str, prepared: Any) -> str:
    """What the call does in words (``Reading src/app.py``), else the tool's name."""
    message = getattr(prepared, "invocation_message", "") if prepared is not None else ""
    return one_line(message or name)


def locations(event: ev.ToolCallStarted | ev.ApprovalRequested) -> list[ToolCallLocation]:
    """The files the call touches (absolute), with the line a read starts at."""
    from acp.schema import ToolCallLocation

    paths = event.prepared.paths if event.prepared is not None else ()
    start = event.input.get("start_line") if event.name == "read_file" else None
    line = start if isinstance(start, int) and start >= 0 else None
    return [ToolCallLocation(path=str(path), line=line) for path in paths]


def edit_diff(event: ev.ToolCallStarted | ev.ApprovalRequested) -> list[ToolCallContentVariant]:
    """An edit's change as ACP diff content (old and new text), from its input."""
    from acp import tool_diff_content

    paths = event.prepared.paths if event.prepared is not None else ()
    if not paths:
        return []
    path = str(paths[0])
    args = event.input
    if event.name == "replace_string_in_file":
        old, new = args.get("old_string"), args.get("new_string")
        if isinstance(old, str) and isinstance(new, str):
            return [tool_diff_content(path, visible(new), visible(old))]
    if event.name == "create_file" and isinstance(args.get("content"), str):
        return [tool_diff_content(path, visible(args["content"]), None)]
    return []


def tool_start(event: ev.ToolCallStarted) -> ToolCallStart:
    from acp import start_tool_call

    kind = tool_kind(event.name, event.kind)
    return start_tool_call(
        event.call_id,
        tool_title(event.name, event.prepared),
        kind=kind,
        status="pending",
        content=edit_diff(event) if kind == "edit" else None,
        locations=locations(event),
        raw_input=event.input,
    )


def permission_view(event: ev.ApprovalRequested, kind: str) -> ToolCallUpdate:
    """The call as ``session/request_permission`` shows it: title, kind, diff, locations."""
    from acp.schema import ToolCallUpdate

    tool = tool_kind(event.name, kind)
    reason = one_line(event.verdict.reason)
    title = tool_title(event.name, event.prepared)
    return ToolCallUpdate(
        tool_call_id=event.call_id,
        title=f"{title} ({reason})" if reason else title,
        kind=tool,
        status="pending",
        content=edit_diff(event) if tool == "edit" else None,
        locations=locations(event),
        raw_input=event.input,
    )


def tool_decided(event: ev.ToolCallDecided, title: str | None = None) -> ToolCallProgress:
    """Running, or refused with the reason. ``title`` is the call's own title, sent again:
    clients such as Toad apply the permission request's tool call as an update, so the title
    that said why it asked would otherwise stay on the call for good."""
    from acp import tool_content, update_tool_call
    from acp.schema import TextContentBlock

    if event.allowed:
        return update_tool_call(event.call_id, title=title, status="in_progress")
    text = f"not run: {one_line(event.reason)}"
    return update_tool_call(
        event.call_id,
        title=title,
        status="failed",
        content=[tool_content(TextContentBlock(type="text", text=text))],
    )


def tool_output(call_id: str, output: str) -> ToolCallProgress:
    """A running call's output so far (a command's, while it runs)."""
    from acp import tool_content, update_tool_call
    from acp.schema import TextContentBlock

    block = TextContentBlock(type="text", text=visible(output))
    return update_tool_call(call_id, status="in_progress", content=[tool_content(block)])


def tool_finished(event: ev.ToolCallFinished, kind: str) -> ToolCallProgress:
    """Done or failed, with the result as text (a command's output; an edit keeps its diff)."""
    from acp import tool_content, update_tool_call
    from acp.schema import TerminalToolCallContent, TextContentBlock

    result = event.result
    shown = result.display if result.display is not None else result.content
    if len(shown) > MAX_SHOWN_OUTPUT:
        shown = shown[:MAX_SHOWN_OUTPUT] + f"\n… ({len(shown) - MAX_SHOWN_OUTPUT} more characters)"
    content: list[Any] | None = None
    terminal_id = result.data.get("client_terminal_id")
    if isinstance(terminal_id, str) and terminal_id:
        # Run in the editor's terminal: it keeps showing it after the release.
        content = [TerminalToolCallContent(type="terminal", terminal_id=terminal_id)]
    elif shown and (kind != "edit" or result.is_error):
        block = TextContentBlock(type="text", text=visible(shown))
        content = [tool_content(block)]
    title = one_line(event.past_tense_message) if event.past_tense_message else None
    status: Literal["completed", "failed"] = "failed" if result.is_error else "completed"
    return update_tool_call(event.call_id, title=title, status=status, content=content)


def usage(event: ev.UsageUpdated) -> UsageUpdate | None:
    """How full the context is, and the session's cost when known (None: window unknown)."""
    from acp.schema import Cost, UsageUpdate

    limit = event.context_limit or event.context_window
    if not limit:
        return None
    cost = Cost(amount=event.cost_usd, currency="USD") if event.cost_usd is not None else None
    used = min(event.context_tokens, limit)
    return UsageUpdate(session_update="usage_update", used=used, size=limit, cost=cost)


def plan(event: ev.TodoUpdated) -> AgentPlanUpdate:
    """The todo list as ACP's plan: the whole list each time, as the tool sends it."""
    from acp.helpers import plan_entry, update_plan

    return update_plan(
        plan_entry(one_line(item.content), status=_PLAN_STATUS.get(item.status, "pending"))
        for item in event.items
    )


_PLAN_STATUS: dict[str, Literal["pending", "in_progress", "completed"]] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "completed": "completed",
}


def _source_lines(sources: tuple[ev.WebSource, ...]) -> str:
    return "\n".join(ev.source_line(n, s) for n, s in enumerate(sources, 1))


def web_search(event: ev.WebSearched, call_id: str) -> ToolCallStart:
    """The provider's own search as a finished ``fetch`` tool call: the query, the sources."""
    from acp import start_tool_call, tool_content
    from acp.schema import TextContentBlock

    listed = _source_lines(event.sources)
    block = TextContentBlock(type="text", text=listed or visible(event.error) or "no results")
    return start_tool_call(
        call_id,
        f"Searched the web: {one_line(event.query)}",
        kind="fetch",
        status="failed" if event.error else "completed",
        content=[tool_content(block)],
        raw_input={"query": event.query},
    )


def cited(event: ev.AnswerCited) -> AgentMessageChunk:
    """The sources the answer cites, as a last paragraph of the answer."""
    return message_chunk("\n\nSources:\n" + _source_lines(event.sources) + "\n")
