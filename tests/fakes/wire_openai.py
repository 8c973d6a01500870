"""OpenAI Chat Completions bodies for the fake server: ``data:`` chunks and non-streaming JSON.

Shapes follow https://platform.openai.com/docs/api-reference/chat/streaming; the tests check that
the official ``openai`` SDK parses them. ``thinking`` is streamed as ``delta.reasoning_content``,
the way OpenAI-compatible servers (vLLM, DeepSeek, llama.cpp) send reasoning.
"""

from __future__ import annotations

import json
import time
from typing import Any

from agent_tui.providers.script import BREAK_FAULTS, ScriptTurn, chunk_text

from .wire_anthropic import CUT

_ERROR = {"error": {"message": "Overloaded", "type": "server_error", "param": None, "code": None}}
_FINISH = {"end_turn": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


def _usage(turn: ScriptTurn, input_estimate: int) -> dict[str, int]:
    produced = turn.text + turn.thinking + "".join(c.arguments for c in turn.tool_calls)
    prompt = turn.usage.get("input_tokens", input_estimate)
    completion = turn.usage.get("output_tokens", len(produced) // 4 + 1)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _arguments(turn: ScriptTurn, arguments: str) -> str:
    return arguments[:-1] if turn.fault == "malformed_tool_json" else arguments


class _Chunks:
    def __init__(self, model: str, number: int, include_usage: bool) -> None:
        self.base = {
            "id": f"chatcmpl-fake-{number}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_fake",
        }
        self.include_usage = include_usage
        self.out: list[Any] = []

    def add(self, delta: dict[str, Any], finish_reason: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        chunk: dict[str, Any] = {**self.base, "choices": [choice]}
        if self.include_usage:
            chunk["usage"] = None  # every chunk but the last carries a null usage
        self.out.append(f"data: {json.dumps(chunk)}\n\n")

    def raw(self, chunk: dict[str, Any]) -> None:
        self.out.append(f"data: {json.dumps({**self.base, **chunk})}\n\n")


def completion_stream(
    turn: ScriptTurn, model: str, number: int, input_estimate: int, include_usage: bool
) -> list[Any]:
    """The SSE lines of one streamed turn (with :data:`CUT` where a cut fault applies).

    A ``stream_error`` fault ends the lines with an ``error`` object where a cut would be.
    """
    chunks = _Chunks(model, number, include_usage)
    chunks.add({"role": "assistant", "content": ""})
    if turn.fault == "unknown_event":
        chunks.out.append(": keep-alive comment\n\n")
        chunks.raw({"object": "chat.completion.future", "choices": [], "future": {"x": 1}})
    for piece in chunk_text(turn.thinking):
        chunks.add({"reasoning_content": piece})
    pieces = chunk_text(turn.text)
    for n, piece in enumerate(pieces):
        chunks.add({"content": piece})
        if turn.fault in BREAK_FAULTS and n == max(0, len(pieces) // 2 - 1):
            if turn.fault == "stream_error":  # vLLM-style: an error object, then the end
                return [*chunks.out, f"data: {json.dumps(_ERROR)}\n\n", "data: [DONE]\n\n"]
            chunks.out.append(CUT)
    for index, call in enumerate(turn.tool_calls):
        first = {"index": index, "id": call.id, "type": "function"}
        chunks.add({"tool_calls": [{**first, "function": {"name": call.name, "arguments": ""}}]})
        for piece in chunk_text(_arguments(turn, call.arguments), 10):
            chunks.add({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    if turn.fault == "stream_error" and not turn.text:
        return [*chunks.out, f"data: {json.dumps(_ERROR)}\n\n", "data: [DONE]\n\n"]
    if turn.fault == "cut" and CUT not in chunks.out:
        chunks.out.append(CUT)
    chunks.add({}, finish_reason=_FINISH.get(turn.final_stop_reason, turn.final_stop_reason))
    if turn.fault == "cut_at_end":  # before the usage chunk and [DONE]
        chunks.out.append(CUT)
    if include_usage:
        chunks.raw({"choices": [], "usage": _usage(turn, input_estimate)})
    chunks.out.append("data: [DONE]\n\n")
    return chunks.out


def completion_json(
    turn: ScriptTurn, model: str, number: int, input_estimate: int
) -> dict[str, Any]:
    """The non-streaming response body of one turn."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None, "refusal": None}
    if turn.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(turn, call.arguments)},
            }
            for call in turn.tool_calls
        ]
    if turn.thinking:
        message["reasoning_content"] = turn.thinking
    finish = _FINISH.get(turn.final_stop_reason, turn.final_stop_reason)
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _usage(turn, input_estimate),
    }


def error_body(status: int, message: str) -> dict[str, Any]:
    kinds = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": kinds.get(status)}}
