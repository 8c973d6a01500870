"""The pure reducer from Anthropic Messages stream events (plain dicts) to ProviderEvents.

Both transports feed it: the httpx SSE transport (``json.loads`` of each ``data:``) and the SDK
transport (``event.to_dict()``). Event reference: https://docs.anthropic.com/en/api/messages-streaming.
Unknown event and block types are ignored, as the API asks clients to do.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.errors import ProviderError
from agent_tui.providers.base import (
    ProviderEvent,
    ServerBlock,
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from agent_tui.providers.web_search import anthropic_citation, anthropic_search

# Error types the API sends inside a stream; all but these mean "try again later".
_FATAL_ERRORS = {
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "not_found_error",
}


class AnthropicReducer:
    """Turns one response's events into ProviderEvents; keeps only what it must between events.

    Tool calls are numbered 0, 1, 2 ... in the order they start (content block indexes also count
    text and thinking blocks). A response yields one ``Usage`` (at ``message_delta``) and ends with
    one ``Stop`` (at ``message_stop``); ``complete`` says whether that end arrived.
    """

    def __init__(self) -> None:
        self._blocks: dict[int, str] = {}  # content block index -> "text" | "thinking" | "tool"
        self._tool_index: dict[int, int] = {}  # content block index -> tool call number
        self._tool_has_args: dict[int, bool] = {}
        self._usage: dict[str, int] = {}
        # Server tool blocks (web search): the use block and its input fragments until its stop;
        # the queries by use id, for the result block that follows.
        self._server: dict[int, tuple[dict[str, Any], list[str]]] = {}
        self._queries: dict[str, str] = {}
        self._stop_reason: str | None = None
        self.complete = False

    def feed(self, event: dict[str, Any]) -> list[ProviderEvent]:
        """Reduce one wire event.

        Raises:
            ProviderError: the stream carried an ``error`` event.
        """
        handler = getattr(self, "_on_" + str(event.get("type")), None)
        return handler(event) if handler is not None else []

    def finish(self) -> list[ProviderEvent]:
        """Events owed at the end of the stream (none: ``message_stop`` already said it all)."""
        return []

    def _on_message_start(self, event: dict[str, Any]) -> list[ProviderEvent]:
        self._merge_usage((event.get("message") or {}).get("usage"))
        return []

    def _on_content_block_start(self, event: dict[str, Any]) -> list[ProviderEvent]:
        index = int(event.get("index", 0))
        block = event.get("content_block") or {}
        kind = block.get("type")
        if kind == "text":
            self._blocks[index] = "text"
            return [TextDelta(block["text"])] if block.get("text") else []
        if kind == "thinking":
            self._blocks[index] = "thinking"
            text, signature = block.get("thinking") or "", block.get("signature") or ""
            return [ThinkingDelta(text, signature)] if text or signature else []
        if kind == "tool_use":
            self._blocks[index] = "tool"
            number = self._tool_index[index] = len(self._tool_index)
            call = ToolCallStart(number, str(block.get("id", "")), str(block.get("name", "")))
            out: list[ProviderEvent] = [call]
            # Some proxies send the whole input here instead of input_json_delta fragments.
            if block.get("input"):
                out.append(ToolCallDelta(number, json.dumps(block["input"])))
                self._tool_has_args[index] = True
            return out
        if kind == "redacted_thinking" and block.get("data"):
            return [ThinkingDelta("", redacted=str(block["data"]))]
        return self._server_block(index, block)

    def _server_block(self, index: int, block: dict[str, Any]) -> list[ProviderEvent]:
        """A server tool's block: a use streams its input, a web search result comes whole."""
        kind = block.get("type")
        if kind == "server_tool_use":
            self._blocks[index] = "server"
            self._server[index] = (block, [])
            return []
        if kind == "web_search_tool_result":
            query = self._queries.get(str(block.get("tool_use_id")), "")
            return [ServerBlock("anthropic", block), anthropic_search(query, block)]
        return []  # future block types

    def _on_content_block_delta(self, event: dict[str, Any]) -> list[ProviderEvent]:
        index = int(event.get("index", 0))
        delta = event.get("delta") or {}
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [TextDelta(delta["text"])]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [ThinkingDelta(delta["thinking"])]
        if kind == "signature_delta" and delta.get("signature"):
            return [ThinkingDelta("", delta["signature"])]
        if kind == "citations_delta":
            citation = anthropic_citation(delta.get("citation"))
            return [citation] if citation is not None else []
        if kind == "input_json_delta" and index in self._server and delta.get("partial_json"):
            self._server[index][1].append(delta["partial_json"])
            return []
        if kind == "input_json_delta" and index in self._tool_index and delta.get("partial_json"):
            self._tool_has_args[index] = True
            return [ToolCallDelta(self._tool_index[index], delta["partial_json"])]
        return []

    def _on_content_block_stop(self, event: dict[str, Any]) -> list[ProviderEvent]:
        index = int(event.get("index", 0))
        if index in self._server:
            return self._server_use_done(*self._server.pop(index))
        if self._blocks.get(index) != "tool":
            return []
        number = self._tool_index[index]
        # A call with no arguments streams no fragment at all; give the loop valid JSON.
        head: list[ProviderEvent] = (
            [] if self._tool_has_args.get(index) else [ToolCallDelta(number, "{}")]
        )
        return [*head, ToolCallEnd(number)]

    def _server_use_done(self, block: dict[str, Any], parts: list[str]) -> list[ProviderEvent]:
        """A finished ``server_tool_use``: its input parsed, kept to go back to the API."""
        try:
            streamed = json.loads("".join(parts)) if parts else None
        except json.JSONDecodeError:
            streamed = None
        tool_input = streamed if isinstance(streamed, dict) else block.get("input") or {}
        whole = {**block, "input": tool_input}
        query = tool_input.get("query") if isinstance(tool_input, dict) else None
        self._queries[str(block.get("id"))] = query if isinstance(query, str) else ""
        return [ServerBlock("anthropic", whole)]

    def _on_message_delta(self, event: dict[str, Any]) -> list[ProviderEvent]:
        self._stop_reason = (event.get("delta") or {}).get("stop_reason") or self._stop_reason
        self._merge_usage(event.get("usage"))
        return [self._usage_event()]

    def _on_message_stop(self, event: dict[str, Any]) -> list[ProviderEvent]:
        self.complete = True
        reason = self._stop_reason or ("tool_use" if self._tool_index else "end_turn")
        return [Stop(reason)]

    def _on_error(self, event: dict[str, Any]) -> list[ProviderEvent]:
        error = event.get("error") or {}
        kind = str(error.get("type", "api_error"))
        message = str(error.get("message") or kind)
        status = 529 if kind == "overloaded_error" else None
        raise ProviderError(
            f"{kind}: {message}", status=status, retryable=kind not in _FATAL_ERRORS
        )

    def _merge_usage(self, usage: dict[str, Any] | None) -> None:
        # message_delta counts are cumulative, so later values replace earlier ones.
        for key, value in (usage or {}).items():
            if isinstance(value, int):
                self._usage[key] = value

    def _usage_event(self) -> Usage:
        return Usage(
            input_tokens=self._usage.get("input_tokens", 0),
            output_tokens=self._usage.get("output_tokens", 0),
            cache_read_tokens=self._usage.get("cache_read_input_tokens", 0),
            cache_write_tokens=self._usage.get("cache_creation_input_tokens", 0),
        )
