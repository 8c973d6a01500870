"""Anthropic Messages API bodies for the fake server: SSE frames and non-streaming JSON.

Event names and shapes follow https://docs.anthropic.com/en/api/messages-streaming; the tests
check that the official ``anthropic`` SDK parses them.
"""

from __future__ import annotations

import json
from typing import Any

from agent_tui.providers.script import BREAK_FAULTS, ScriptTurn, chunk_text

CUT = object()  # marks where a "cut" fault drops the connection
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def frame(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _usage(turn: ScriptTurn, input_estimate: int) -> tuple[int, int]:
    produced = turn.text + turn.thinking + "".join(c.arguments for c in turn.tool_calls)
    return (
        turn.usage.get("input_tokens", input_estimate),
        turn.usage.get("output_tokens", len(produced) // 4 + 1),
    )


def _arguments(turn: ScriptTurn, arguments: str) -> str:
    # Drop the closing brace: the fragments then join into JSON that does not parse.
    return arguments[:-1] if turn.fault == "malformed_tool_json" else arguments


def message_stream(turn: ScriptTurn, model: str, number: int, input_estimate: int) -> list[Any]:
    """The SSE frames of one streamed turn (with :data:`CUT` where a cut fault applies).

    A ``stream_error`` fault ends the frames with an ``error`` event where a cut would be.
    """
    input_tokens, output_tokens = _usage(turn, input_estimate)
    out: list[Any] = [
        frame(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_fake_{number}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {
                        "input_tokens": input_tokens,
                        "output_tokens": 1,
                        "cache_creation_input_tokens": turn.usage.get("cache_write_tokens", 0),
                        "cache_read_input_tokens": turn.usage.get("cache_read_tokens", 0),
                    },
                },
            },
        ),
        frame("ping", {"type": "ping"}),
    ]
    if turn.fault == "unknown_event":
        out.append(": a comment line, which SSE clients skip\n\n")
        out.append(frame("future_event", {"type": "future_event", "detail": {"x": 1}}))
    index = 0
    if turn.thinking:
        start = {"type": "thinking", "thinking": "", "signature": ""}
        out.append(frame("content_block_start", _start(index, start)))
        for piece in chunk_text(turn.thinking):
            out.append(_delta(index, {"type": "thinking_delta", "thinking": piece}))
        signature = turn.signature or f"sig_fake_{number}"
        out.append(_delta(index, {"type": "signature_delta", "signature": signature}))
        out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if turn.redacted_thinking:
        # A redacted block arrives whole in its start event, with no deltas.
        block = {"type": "redacted_thinking", "data": turn.redacted_thinking}
        out.append(frame("content_block_start", _start(index, block)))
        out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for n, search in enumerate(turn.web_searches):
        out += _web_search(index, f"srvtoolu_fake{number}_{n}", search)
        index += 2
    if turn.text:
        out.append(frame("content_block_start", _start(index, {"type": "text", "text": ""})))
        for citation in turn.citations:
            out.append(_delta(index, {"type": "citations_delta", "citation": _cited(citation)}))
        pieces = chunk_text(turn.text)
        for n, piece in enumerate(pieces):
            out.append(_delta(index, {"type": "text_delta", "text": piece}))
            if turn.fault in BREAK_FAULTS and n == max(0, len(pieces) // 2 - 1):
                if turn.fault == "stream_error":
                    return [*out, frame("error", OVERLOADED)]
                out.append(CUT)
        out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    for call in turn.tool_calls:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        out.append(frame("content_block_start", _start(index, block)))
        # The real API opens every tool input with an empty fragment.
        for piece in ["", *chunk_text(_arguments(turn, call.arguments), 10)]:
            out.append(_delta(index, {"type": "input_json_delta", "partial_json": piece}))
        out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    if turn.fault == "stream_error" and not turn.text:
        return [*out, frame("error", OVERLOADED)]
    if turn.fault == "cut" and CUT not in out:
        out.append(CUT)
    delta = {"stop_reason": turn.final_stop_reason, "stop_sequence": None}
    usage: dict[str, Any] = {"output_tokens": output_tokens}
    if turn.web_searches:
        searches = len(turn.web_searches)
        usage["server_tool_use"] = {"web_search_requests": searches, "web_fetch_requests": 0}
    out.append(frame("message_delta", {"type": "message_delta", "delta": delta, "usage": usage}))
    out.append(frame("message_stop", {"type": "message_stop"}))
    if turn.fault == "cut_at_end":
        out.append(CUT)
    return out


def search_blocks(use_id: str, search: dict[str, Any]) -> list[dict[str, Any]]:
    """The server_tool_use and web_search_tool_result blocks of one scripted search."""
    use = {"type": "server_tool_use", "id": use_id, "name": "web_search"}
    content: Any = [
        {
            "type": "web_search_result",
            "title": r.get("title", ""),
            "url": r["url"],
            "encrypted_content": f"enc-{use_id}-{n}",
            "page_age": None,
        }
        for n, r in enumerate(search.get("results") or [])
    ]
    if search.get("error"):
        content = {"type": "web_search_tool_result_error", "error_code": search["error"]}
    result = {"type": "web_search_tool_result", "tool_use_id": use_id, "content": content}
    return [{**use, "input": {"query": search.get("query", "")}}, result]


def _web_search(index: int, use_id: str, search: dict[str, Any]) -> list[Any]:
    """A search as the API streams it: the use's input in fragments, then the whole result."""
    use, result = search_blocks(use_id, search)
    out: list[Any] = [frame("content_block_start", _start(index, {**use, "input": {}}))]
    for piece in ["", *chunk_text(json.dumps(use["input"]), 10)]:
        out.append(_delta(index, {"type": "input_json_delta", "partial_json": piece}))
    out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(frame("content_block_start", _start(index + 1, result)))
    out.append(frame("content_block_stop", {"type": "content_block_stop", "index": index + 1}))
    return out


def _cited(citation: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "web_search_result_location",
        "url": citation["url"],
        "title": citation.get("title"),
        "cited_text": citation.get("cited_text", ""),
        "encrypted_index": "enc-index",
    }


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> str:
    return frame(
        "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    )


def message_json(turn: ScriptTurn, model: str, number: int, input_estimate: int) -> dict[str, Any]:
    """The non-streaming response body of one turn."""
    input_tokens, output_tokens = _usage(turn, input_estimate)
    content: list[dict[str, Any]] = []
    if turn.thinking:
        signature = turn.signature or f"sig_fake_{number}"
        content.append({"type": "thinking", "thinking": turn.thinking, "signature": signature})
    if turn.redacted_thinking:
        content.append({"type": "redacted_thinking", "data": turn.redacted_thinking})
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for call in turn.tool_calls:
        tool_input: Any = call.input
        if isinstance(tool_input, str):
            try:  # the real API only ever returns parsed input
                tool_input = json.loads(tool_input)
            except ValueError:
                pass
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": tool_input})
    return {
        "id": f"msg_fake_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": turn.final_stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    kinds = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
        529: "overloaded_error",
    }
    kind = kinds.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_fake"}
