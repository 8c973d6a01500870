"""The ``scripted`` provider: replays assistant turns from a script (providers/script.py).

It powers the offline demo, bug-report reproductions (``--record FILE`` writes the script) and
tests that need a model without HTTP. It yields the same events as the real providers, text and
thinking in small chunks. Faults: ``"cut"`` and ``"stream_error"`` break the turn half-way
(StreamInterrupted),
``"malformed_tool_json"`` sends arguments that do not parse, ``{"status": N, "times": k}`` fails
the next k requests with the error a real provider raises for N; others are ignored.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.errors import (
    ConfigError,
    ProviderAuthError,
    ProviderError,
    ProviderNotFoundError,
    ProviderRateLimitError,
    StreamInterrupted,
)
from agent_tui.providers.base import (
    Citation,
    ProviderEvent,
    ProviderRequest,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    WebSearch,
    WebSource,
)
from agent_tui.providers.script import (
    BREAK_FAULTS,
    ScriptTurn,
    chunk_text,
    load_script,
    parse_turn,
)

if TYPE_CHECKING:
    from agent_tui.config import ModelConfig


def _status_error(status: int) -> ProviderError:
    message = f"scripted fault: HTTP {status}"
    if status in (401, 403):
        return ProviderAuthError(message, status=status)
    if status == 404:
        return ProviderNotFoundError(message, status=status)
    if status == 429 or status >= 500:
        return ProviderRateLimitError(message, status=status, retryable=True)
    return ProviderError(message, status=status)


class ScriptedProvider:
    """Replays a script, one turn per ``stream()`` call.

    Args:
        script: a script file (JSON list or JSONL), or the turns themselves.
        chunk_delay: seconds between streamed chunks (the demo uses it to look alive).

    Attributes:
        requests: every request received, in order (tests read what the model was sent).
    """

    name = "scripted"

    def __init__(
        self,
        script: str | Path | list[ScriptTurn] | list[dict[str, Any]],
        *,
        chunk_delay: float = 0,
    ) -> None:
        if isinstance(script, str | Path):
            self.source = str(script)
            self.turns = load_script(script)
        else:
            self.source = "the script"
            self.turns = [
                t if isinstance(t, ScriptTurn) else parse_turn(t, position=n)
                for n, t in enumerate(script)
            ]
        self.chunk_delay = chunk_delay
        self.requests: list[ProviderRequest] = []
        self._position = 0
        self._fault_hits = 0

    @classmethod
    def from_config(cls, model_config: ModelConfig) -> ScriptedProvider:
        """Build from ``[model] provider = "scripted"``, ``script = FILE``.

        Raises:
            ConfigError: no script is configured, or it cannot be read or parsed.
        """
        if not model_config.script:
            raise ConfigError("the scripted provider needs a script file", key="model.script")
        return cls(model_config.script, chunk_delay=model_config.chunk_delay_s)

    async def stream(self, request: ProviderRequest) -> AsyncIterator[ProviderEvent]:
        """Play the next turn.

        Raises:
            ProviderError: the script has no turns left (or a status fault applies).
            StreamInterrupted: the turn has a ``"cut"`` fault (after half of its text).
        """
        self.requests.append(request)
        if self._position >= len(self.turns):
            raise ProviderError(
                f"{self.source} has no more turns ({len(self.turns)} played); "
                "add turns to it, or record a real session with --record FILE"
            )
        turn = self.turns[self._position]
        fault = turn.fault if isinstance(turn.fault, dict) else None
        if fault is not None and self._fault_hits < int(fault.get("times", 1)):
            self._fault_hits += 1
            raise _status_error(int(fault["status"]))
        self._position += 1
        self._fault_hits = 0
        for event in turn_events(turn):
            if isinstance(event, StreamInterrupted):
                raise event
            yield event
            await asyncio.sleep(self.chunk_delay)  # also lets other tasks (the UI) run

    async def aclose(self) -> None:
        """Nothing to release."""


def _web_events(turn: ScriptTurn) -> list[ProviderEvent | StreamInterrupted]:
    """A scripted turn's own web searches and citations, as a provider reads them (no server
    blocks: nothing goes back to a scripted model)."""
    out: list[ProviderEvent | StreamInterrupted] = []
    for search in turn.web_searches:
        found = search.get("results") or []
        sources = tuple(WebSource(str(r.get("title", "")), str(r.get("url", ""))) for r in found)
        out.append(WebSearch(str(search.get("query", "")), sources, str(search.get("error") or "")))
    for cited in turn.citations:
        out.append(
            Citation(
                str(cited.get("url", "")),
                str(cited.get("title", "")),
                str(cited.get("cited_text", "")),
            )
        )
    return out


def turn_events(turn: ScriptTurn) -> list[ProviderEvent | StreamInterrupted]:
    """The events a real provider would yield for this turn (a cut ends in the exception)."""
    out: list[ProviderEvent | StreamInterrupted] = [
        ThinkingDelta(p) for p in chunk_text(turn.thinking)
    ]
    if turn.signature:
        out.append(ThinkingDelta("", turn.signature))
    if turn.redacted_thinking:
        out.append(ThinkingDelta("", redacted=turn.redacted_thinking))
    out += _web_events(turn)
    pieces = chunk_text(turn.text)
    for n, piece in enumerate(pieces):
        out.append(TextDelta(piece))
        if turn.fault in BREAK_FAULTS and n == max(0, len(pieces) // 2 - 1):
            partial = "".join(pieces[: n + 1])
            return [
                *out,
                StreamInterrupted("scripted fault: the stream was cut", partial_text=partial),
            ]
    for index, call in enumerate(turn.tool_calls):
        out.append(ToolCallStart(index, call.id, call.name))
        arguments = call.arguments[:-1] if turn.fault == "malformed_tool_json" else call.arguments
        out.extend(ToolCallDelta(index, p) for p in chunk_text(arguments or "{}", 10))
        out.append(ToolCallEnd(index))
    if turn.fault in BREAK_FAULTS:
        return [
            *out,
            StreamInterrupted("scripted fault: the stream was cut", partial_text=turn.text),
        ]
    usage = turn.usage
    out.append(
        Usage(
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cache_read_tokens=usage.get("cache_read_tokens", 0),
            cache_write_tokens=usage.get("cache_write_tokens", 0),
        )
    )
    out.append(Stop(turn.final_stop_reason))
    return out
