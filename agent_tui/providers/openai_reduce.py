"""The pure reducer from OpenAI Chat Completions chunks (plain dicts) to ProviderEvents.

Both transports feed it: the httpx SSE transport (``json.loads`` of each ``data:`` line before
``[DONE]``) and the SDK transport (``chunk.to_dict()``). Chunk reference:
https://platform.openai.com/docs/api-reference/chat/streaming. It also reads what common
OpenAI-compatible servers add: ``delta.reasoning_content`` / ``delta.reasoning`` (vLLM, DeepSeek,
llama.cpp, Ollama) as thinking, tool calls that all reuse index 0 with fresh ids, and
``finish_reason: "stop"`` on a response that did call tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_tui.errors import ProviderError
from agent_tui.providers.base import (
    ProviderEvent,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)

_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


@dataclass
class _Call:
    """A streamed tool call: its number in the reply, its id, and whether arguments came."""

    number: int
    id: str
    has_args: bool = False


class OpenAIReducer:
    """Turns one response's chunks into ProviderEvents.

    Tool calls end when ``finish_reason`` arrives (calls are not delimited on the wire). The
    ``Usage`` (from the ``include_usage`` chunk) and the ``Stop`` come from :meth:`finish`, since
    the usage chunk follows the ``finish_reason`` one; ``complete`` says a ``finish_reason`` came.
    """

    def __init__(self) -> None:
        self._calls: dict[int, _Call] = {}  # wire index -> the call currently at that index
        self._started: list[_Call] = []
        self._finish_reason: str | None = None
        self._usage: dict[str, Any] | None = None
        self.complete = False

    def feed(self, chunk: dict[str, Any]) -> list[ProviderEvent]:
        """Reduce one chunk.

        Raises:
            ProviderError: the stream carried an ``error`` object.
        """
        if isinstance(chunk.get("error"), dict):
            message = chunk["error"].get("message") or "the server reported an error mid-stream"
            raise ProviderError(str(message), retryable=True)
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        out: list[ProviderEvent] = []
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue  # we never ask for n > 1
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                out.append(ThinkingDelta(reasoning))
            for key in ("content", "refusal"):
                if isinstance(delta.get(key), str) and delta[key]:
                    out.append(TextDelta(delta[key]))
            for call in delta.get("tool_calls") or []:
                out.extend(self._tool_call(call))
            if choice.get("finish_reason") and self._finish_reason is None:
                self._finish_reason = str(choice["finish_reason"])
                out.extend(self._end_calls())
        return out

    def finish(self) -> list[ProviderEvent]:
        """The ``Usage`` and ``Stop`` owed once the stream has ended (nothing if it was cut)."""
        if self._finish_reason is None:
            return []
        self.complete = True
        out: list[ProviderEvent] = []
        if self._usage is not None:
            out.append(_usage(self._usage))
        reason = _STOP_REASONS.get(self._finish_reason, self._finish_reason)
        if reason == "end_turn" and self._started:
            reason = "tool_use"  # Ollama and others say "stop" even when calling tools
        out.append(Stop(reason))
        return out

    def _tool_call(self, call: dict[str, Any]) -> list[ProviderEvent]:
        wire_index = int(call.get("index") or 0)
        function = call.get("function") or {}
        current = self._calls.get(wire_index)
        out: list[ProviderEvent] = []
        if current is None or (call.get("id") and call["id"] != current.id):
            number = len(self._started)
            current = _Call(number, str(call.get("id") or f"call_{number}"))
            self._calls[wire_index] = current
            self._started.append(current)
            out.append(ToolCallStart(current.number, current.id, str(function.get("name") or "")))
        if function.get("arguments"):
            current.has_args = True
            out.append(ToolCallDelta(current.number, str(function["arguments"])))
        return out

    def _end_calls(self) -> list[ProviderEvent]:
        out: list[ProviderEvent] = []
        for call in self._started:
            if not call.has_args:
                out.append(ToolCallDelta(call.number, "{}"))
            out.append(ToolCallEnd(call.number))
        return out


def _usage(usage: dict[str, Any]) -> Usage:
    # prompt_tokens includes cached tokens; ours (like Anthropic's) counts them apart.
    cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)
    return Usage(
        input_tokens=int(usage.get("prompt_tokens") or 0) - cached,
        output_tokens=int(usage.get("completion_tokens") or 0),
        cache_read_tokens=cached,
    )
