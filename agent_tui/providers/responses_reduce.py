"""The pure reducer from OpenAI Responses API stream events (plain dicts) to ProviderEvents.

Both transports feed it: the httpx SSE transport (``json.loads`` of each ``data:``; the stream has
no ``[DONE]``, it ends with ``response.completed`` / ``response.incomplete`` / ``response.failed``)
and the SDK transport (``event.to_dict()`` from ``client.responses.stream``). Event reference:
https://platform.openai.com/docs/api-reference/responses-streaming, checked against the
``openai`` SDK's ``types/responses`` models (tests/providers/test_fake_server.py).

Reasoning summaries stream as thinking; a finished reasoning item's ``encrypted_content`` closes
the thinking block so that it goes back to the API in the next request (``store: false``).
"""

from __future__ import annotations

from dataclasses import dataclass
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
from agent_tui.providers.web_search import responses_citation, responses_search

_INCOMPLETE = {"max_output_tokens": "max_tokens", "content_filter": "refusal"}
# response.failed codes that fail the same way however often they are sent.
_FINAL_CODES = {"context_length_exceeded", "insufficient_quota", "invalid_prompt"}


@dataclass
class _Call:
    """A streamed function call: its number in the reply, whether arguments came, whether it
    ended."""

    number: int
    has_args: bool = False
    ended: bool = False


class ResponsesReducer:
    """Turns one response's events into ProviderEvents.

    The ``Usage`` and ``Stop`` of the terminal event (``response.completed`` or ``.incomplete``)
    come from :meth:`finish`, which sets ``complete`` when that event arrived (as the other
    reducers do: the retry loop reads a cut after it as "all of the answer arrived").
    """

    def __init__(self) -> None:
        self._calls: dict[str, _Call] = {}  # item id (or output index) -> call
        self._count = 0
        self._summary_seen: set[str] = set()  # reasoning items whose summary was streamed
        self._last_summary: tuple[str, int] | None = None
        self._end: list[ProviderEvent] = []
        self._ended = False
        self.complete = False

    def feed(self, event: dict[str, Any]) -> list[ProviderEvent]:
        """Reduce one event.

        Raises:
            ProviderError: an ``error`` event, or ``response.failed``.
        """
        kind = event.get("type")
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            delta = event.get("delta")
            return [TextDelta(delta)] if isinstance(delta, str) and delta else []
        if kind == "response.function_call_arguments.delta":
            return self._arguments(event, str(event.get("delta") or ""))
        if kind == "response.reasoning_summary_text.delta":
            return self._summary(event)
        if kind == "response.reasoning_text.delta":  # raw reasoning (gpt-oss on vLLM and others)
            delta = event.get("delta")
            return [ThinkingDelta(delta)] if isinstance(delta, str) and delta else []
        if kind == "response.output_text.annotation.added":
            citation = responses_citation(event.get("annotation"))
            return [citation] if citation is not None else []
        if kind == "response.output_item.added":
            return self._item_added(event.get("item") or {}, event.get("output_index"))
        if kind == "response.output_item.done":
            return self._item_done(event.get("item") or {}, event.get("output_index"))
        if kind in ("response.completed", "response.incomplete"):
            self._finish_response(event.get("response") or {}, kind)
            return []
        if kind == "response.failed":
            error = (event.get("response") or {}).get("error") or {}
            message = error.get("message") or "the response failed"
            code = str(error.get("code") or "")
            raise ProviderError(str(message), retryable=code not in _FINAL_CODES)
        if kind == "error":
            message = event.get("message") or (event.get("error") or {}).get("message")
            raise ProviderError(
                str(message or "the server reported an error mid-stream"), retryable=True
            )
        return []  # created, in_progress, content_part.*, *.done and events we do not use

    def finish(self) -> list[ProviderEvent]:
        """The ``Usage`` and ``Stop`` owed once the stream has ended (nothing if it was cut)."""
        if not self._ended:
            return []
        self.complete = True
        return list(self._end)

    # -- items ---------------------------------------------------------------------------------
    def _key(self, item_id: Any, output_index: Any) -> str:
        return str(item_id) if item_id else f"#{output_index}"

    def _call(self, event: dict[str, Any]) -> _Call | None:
        call = self._calls.get(self._key(event.get("item_id"), None))
        return call or self._calls.get(self._key(None, event.get("output_index")))

    def _item_added(self, item: dict[str, Any], output_index: Any) -> list[ProviderEvent]:
        if item.get("type") != "function_call":
            return []
        return self._start_call(item, output_index)

    def _start_call(self, item: dict[str, Any], output_index: Any) -> list[ProviderEvent]:
        call = _Call(self._count)
        self._count += 1
        # Known by item id and by output index: argument events carry both, some servers one.
        self._calls[self._key(item.get("id"), output_index)] = call
        self._calls.setdefault(self._key(None, output_index), call)
        call_id = str(item.get("call_id") or item.get("id") or f"call_{call.number}")
        out: list[ProviderEvent] = [
            ToolCallStart(call.number, call_id, str(item.get("name") or ""))
        ]
        return out

    def _arguments(self, event: dict[str, Any], delta: str) -> list[ProviderEvent]:
        call = self._call(event)
        if call is None or not delta or call.ended:
            return []
        call.has_args = True
        return [ToolCallDelta(call.number, delta)]

    def _item_done(self, item: dict[str, Any], output_index: Any) -> list[ProviderEvent]:
        kind = item.get("type")
        out: list[ProviderEvent] = []
        if kind == "function_call":
            call = self._calls.get(self._key(item.get("id"), output_index))
            call = call or self._calls.get(self._key(None, output_index))
            if call is None:  # a server that sends only the finished item
                out.extend(self._start_call(item, output_index))
                call = self._calls[self._key(None, output_index)]
            if call.ended:
                return out
            if not call.has_args:
                out.append(ToolCallDelta(call.number, str(item.get("arguments") or "{}")))
            call.ended = True
            out.append(ToolCallEnd(call.number))
        elif kind == "web_search_call":
            kept: dict[str, Any] = {
                k: item[k] for k in ("id", "type", "status", "action") if k in item
            }
            out += [ServerBlock("responses", kept), responses_search(item)]
        elif kind == "reasoning":
            item_id = str(item.get("id") or "")
            if item_id not in self._summary_seen:
                parts = [str(s.get("text") or "") for s in item.get("summary") or []]
                text = "\n\n".join(p for p in parts if p)
                if text:
                    out.append(ThinkingDelta(text))
            encrypted = item.get("encrypted_content")
            if isinstance(encrypted, str) and encrypted:
                out.append(ThinkingDelta("", encrypted=encrypted))
        return out

    def _summary(self, event: dict[str, Any]) -> list[ProviderEvent]:
        delta = event.get("delta")
        if not isinstance(delta, str) or not delta:
            return []
        item_id = str(event.get("item_id") or "")
        part = (item_id, int(event.get("summary_index") or 0))
        # Summary parts are paragraphs: keep them apart in the one thinking block.
        gap = self._last_summary is not None and self._last_summary != part
        same_item = self._last_summary is not None and self._last_summary[0] == item_id
        self._last_summary = part
        self._summary_seen.add(item_id)
        return [ThinkingDelta(("\n\n" if gap and same_item else "") + delta)]

    def _finish_response(self, response: dict[str, Any], kind: str) -> None:
        self._ended = True
        # Calls a server never closed with output_item.done are closed here.
        for call in {id(c): c for c in self._calls.values()}.values():
            if not call.ended:
                if not call.has_args:
                    self._end.append(ToolCallDelta(call.number, "{}"))
                call.ended = True
                self._end.append(ToolCallEnd(call.number))
        if isinstance(response.get("usage"), dict):
            self._end.append(_usage(response["usage"]))
        if kind == "response.incomplete":
            reason = str((response.get("incomplete_details") or {}).get("reason") or "")
            self._end.append(Stop(_INCOMPLETE.get(reason, reason or "max_tokens")))
        else:
            self._end.append(Stop("tool_use" if self._count else "end_turn"))


def _usage(usage: dict[str, Any]) -> Usage:
    # input_tokens includes cached tokens; ours (like Anthropic's) counts them apart.
    cached = int((usage.get("input_tokens_details") or {}).get("cached_tokens") or 0)
    reasoning = int((usage.get("output_tokens_details") or {}).get("reasoning_tokens") or 0)
    return Usage(
        input_tokens=int(usage.get("input_tokens") or 0) - cached,
        output_tokens=int(usage.get("output_tokens") or 0),
        cache_read_tokens=cached,
        reasoning_tokens=reasoning,
    )
