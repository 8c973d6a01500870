"""Turn a round's ProviderEvents into an assistant Message (text, thinking, tool calls).

Tool-call arguments arrive as JSON fragments; they are parsed once the call ends. Arguments that
are not valid JSON are kept raw so the loop can tell the model exactly what was wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_tui.conversation import (
    Block,
    Message,
    ServerToolBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
)
from agent_tui.providers import base as p
from agent_tui.providers.call_repair import loads_lenient


@dataclass
class PendingCall:
    """A call whose arguments are still arriving.

    The fragments are kept in a list and joined once: ``arguments += fragment`` copies the whole
    string each time, which made a 1 MB ``create_file`` in 11-byte fragments take seconds.
    """

    id: str
    name: str
    parts: list[str] = field(default_factory=list)

    @property
    def arguments(self) -> str:
        return "".join(self.parts)


@dataclass
class RawCall:
    """A finished tool call: ``input`` is None when the arguments could not be parsed."""

    id: str
    name: str
    input: dict[str, Any] | None
    arguments: str
    error: str = ""
    origin: str = ""  # "text": the model wrote the call in its text (agent/text_calls.py)
    repaired: str = ""  # what was repaired to read the arguments (providers/call_repair.py)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str]:
    """Parse tool-call arguments (see :func:`read_arguments`); returns (input, error)."""
    value, error, _ = read_arguments(raw)
    return value, error


def read_arguments(raw: str) -> tuple[dict[str, Any] | None, str, str]:
    """Parse tool-call arguments, repairing near-JSON and JSON that arrives as a string inside
    JSON.

    Returns:
        (input, "", repaired) on success, ``repaired`` saying what was repaired ("" for strict
        JSON); (None, reason, "") when the arguments are unusable.
    """
    if not raw.strip():
        return {}, "", ""
    try:
        read = loads_lenient(raw)
        value: Any = read.value
        repaired = read.repair
        # Some models double-encode: "{\"path\": \"a.py\"}". Unwrap one level.
        if isinstance(value, str):
            inner = loads_lenient(value)
            value, repaired = inner.value, ", ".join(filter(None, (repaired, inner.repair)))
    except json.JSONDecodeError as exc:
        return None, f"the arguments are not valid JSON ({exc.msg} at position {exc.pos})", ""
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, got {type(value).__name__}", ""
    return value, "", repaired


@dataclass
class _Thought:
    """One thinking block being assembled."""

    text: list[str] = field(default_factory=list)
    signature: str = ""
    redacted: str = ""
    encrypted: str = ""

    @property
    def closed(self) -> bool:
        return bool(self.signature or self.redacted or self.encrypted)


@dataclass
class RoundAssembler:
    """Collects one round's provider events into its text, thinking, tool calls, usage and stop
    reason."""

    text: list[str] = field(default_factory=list)
    # Thinking blocks in order. Each goes back to the API as it came (Anthropic verifies each
    # block's signature), so blocks are never merged: a signature closes one.
    thoughts: list[_Thought] = field(default_factory=list)
    calls: dict[int, PendingCall] = field(default_factory=dict)
    usage: p.Usage = field(default_factory=p.Usage)
    stop_reason: str = ""
    # The provider's own tool blocks (web search), each with the number of text fragments
    # before it: they go back in their place between the texts.
    server: list[tuple[int, p.ServerBlock]] = field(default_factory=list)
    citations: dict[str, p.Citation] = field(default_factory=dict)  # by URL, first kept

    def feed(self, event: p.ProviderEvent) -> None:
        # Argument fragments first: a large tool call sends them by the hundred thousand.
        if isinstance(event, p.ToolCallDelta):
            if (call := self.calls.get(event.index)) is not None:
                call.parts.append(event.arguments)
        elif isinstance(event, p.TextDelta):
            self.text.append(event.text)
        elif isinstance(event, p.ThinkingDelta):
            if event.redacted:
                self.thoughts.append(_Thought(redacted=event.redacted))
                return
            if not self.thoughts or self.thoughts[-1].closed:
                self.thoughts.append(_Thought())
            self.thoughts[-1].text.append(event.text)
            self.thoughts[-1].signature = event.signature or self.thoughts[-1].signature
            self.thoughts[-1].encrypted = event.encrypted or self.thoughts[-1].encrypted
        elif isinstance(event, p.ToolCallStart):
            self.calls[event.index] = PendingCall(event.id, event.name)
        elif isinstance(event, p.Usage):
            self.usage = event
        elif isinstance(event, p.Stop):
            self.stop_reason = event.reason
        elif isinstance(event, p.ServerBlock):
            self.server.append((len(self.text), event))
        elif isinstance(event, p.Citation):
            self.citations.setdefault(event.url, event)

    @property
    def partial_text(self) -> str:
        return "".join(self.text)

    def finished_calls(self) -> list[RawCall]:
        out = []
        for index in sorted(self.calls):
            call = self.calls[index]
            arguments = call.arguments
            parsed, error, repaired = read_arguments(arguments)
            out.append(RawCall(call.id, call.name, parsed, arguments, error, repaired=repaired))
        return out

    def message(self, calls: list[RawCall] | None = None) -> Message:
        """The assistant message; ``calls`` None drops tool calls (a cut or cancelled stream)."""
        blocks: list[Block] = []
        for thought in self.thoughts:
            text = "".join(thought.text)
            blocks.append(
                ThinkingBlock(text, thought.signature, thought.redacted, thought.encrypted)
            )
        blocks += self._texts_and_server_blocks()
        for call in calls or []:
            blocks.append(ToolUseBlock(call.id, call.name, call.input or {}))
        return Message("assistant", blocks)

    def _texts_and_server_blocks(self) -> list[Block]:
        """The text as one block, or split where the provider's own tool blocks came."""
        if not self.server:
            return [TextBlock(self.partial_text)] if self.text else []
        blocks: list[Block] = []
        start = 0
        for position, server in self.server:
            at = min(position, len(self.text))  # the text may have been cut since
            if at > start:
                blocks.append(TextBlock("".join(self.text[start:at])))
            blocks.append(ServerToolBlock(server.api, server.raw))
            start = max(start, at)
        if start < len(self.text):
            blocks.append(TextBlock("".join(self.text[start:])))
        return blocks
