"""A round's reply that holds tool calls written as text, turned into calls (``text_tool_calls``).

The parser (``providers/text_tool_calls.py``) decides what the text is; this module makes the
``RawCall`` objects the loop runs, so such a call goes through the same checks and approvals as a
structured one. A failed attempt (a tool that was not offered, arguments that do not parse)
becomes a call that is never run: the model gets the error as the call's result and can try
again, and the user gets a notice, instead of the JSON passing as the final answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui import events as ev
from agent_tui.agent.assemble import RawCall, parse_arguments
from agent_tui.agent.call_progress import shown_name
from agent_tui.config import ModelConfig
from agent_tui.providers.text_tool_calls import (
    TextCallGate,
    parse_text_calls,
    text_calls_enabled,
)

TEXT_ORIGIN = "text"  # RawCall.origin / ToolCallStarted.origin of a call parsed from text
FAILED_NAME = "text_tool_call"  # the name a failed attempt is recorded under when it gave none


def new_gate(model: ModelConfig, offered: list[str]) -> TextCallGate:
    """The gate for one reply: off when no tool is offered or the setting excludes the server."""
    return TextCallGate(bool(offered) and text_calls_enabled(model.text_tool_calls, model.base_url))


@dataclass
class TextCallOutcome:
    """The tool calls found written in a reply's text, and the notices to show about them."""

    calls: list[RawCall] = field(default_factory=list)
    notices: list[ev.Notice] = field(default_factory=list)


def calls_from_text(text: str, offered: list[str]) -> TextCallOutcome | None:
    """The calls a reply's ``text`` makes, or None when it is an answer.

    Args:
        text: the whole text of a reply that had no structured calls.
        offered: the tool names offered with the request.
    """
    found = parse_text_calls(text, set(offered))
    if found is None:
        return None
    if found.problem:
        name = found.attempted_name or FAILED_NAME
        shown = shown_name(name)
        notice = ev.Notice(
            f"The model wrote a tool call to {shown} as text, but {found.problem}; it was not "
            "run, and the model was told.",
            "warning",
        )
        # An unknown name is refused as not offered; anything else as unparseable (input None).
        unknown = bool(found.attempted_name) and found.attempted_name not in offered
        call = RawCall(
            _call_id(),
            name,
            {} if unknown else None,
            text,
            found.problem,
            origin=TEXT_ORIGIN,
        )
        return TextCallOutcome([call], [notice])
    calls = []
    for text_call in found.calls:
        parsed, error = parse_arguments(text_call.arguments)  # exact JSON: the parser wrote it
        calls.append(
            RawCall(
                _call_id(),
                text_call.name,
                parsed,
                text_call.arguments,
                error,
                origin=TEXT_ORIGIN,
                repaired=text_call.repaired,
            )
        )
    return TextCallOutcome(calls)


def _call_id() -> str:
    import uuid  # ~1.5 ms with platform: only for a model that writes its calls as text

    return f"call_text_{uuid.uuid4().hex[:16]}"
