"""OpenAI Responses API bodies for the fake server: ``event:``/``data:`` frames of one response.

Shapes follow https://platform.openai.com/docs/api-reference/responses-streaming; the tests check
them against the official ``openai`` SDK's pydantic models. A turn's ``thinking`` is a reasoning
item whose summary streams as ``response.reasoning_summary_text.delta``; its encrypted_content is
the turn's ``signature`` or ``enc-<turn number>`` (what a client must carry back). ``usage`` may
set ``cached_tokens`` and ``reasoning_tokens`` besides ``input_tokens`` / ``output_tokens``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from agent_tui.providers.script import BREAK_FAULTS, ScriptTurn, chunk_text

from .wire_anthropic import CUT

_INCOMPLETE = {"max_tokens": "max_output_tokens", "refusal": "content_filter"}


def encrypted_for(turn: ScriptTurn, number: int) -> str:
    return turn.signature or f"enc-{number}"


def _usage(turn: ScriptTurn, input_estimate: int) -> dict[str, Any]:
    produced = turn.text + turn.thinking + "".join(c.arguments for c in turn.tool_calls)
    prompt = turn.usage.get("input_tokens", input_estimate)
    completion = turn.usage.get("output_tokens", len(produced) // 4 + 1)
    return {
        "input_tokens": prompt,
        "input_tokens_details": {
            "cached_tokens": turn.usage.get("cached_tokens", 0),
            "cache_write_tokens": 0,
        },
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": turn.usage.get("reasoning_tokens", 0)},
        "total_tokens": prompt + completion,
    }


class _Frames:
    def __init__(self, model: str, number: int) -> None:
        self.number = number
        self.response: dict[str, Any] = {
            "id": f"resp_fake{number}",
            "object": "response",
            "created_at": int(time.time()),
            "model": model,
            "status": "in_progress",
            "output": [],
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "error": None,
            "incomplete_details": None,
            "usage": None,
        }
        self.out: list[Any] = []
        self.sequence = 0

    def add(self, kind: str, **fields: Any) -> None:
        payload = {"type": kind, "sequence_number": self.sequence, **fields}
        self.sequence += 1
        self.out.append(f"event: {kind}\ndata: {json.dumps(payload)}\n\n")

    def item(self, index: int, item: dict[str, Any], streamed: Any) -> None:
        """An output item: added (as in progress), its streamed events, done."""
        start = {**item, "status": "in_progress"}
        if item["type"] == "message":
            start["content"] = []
        elif item["type"] == "function_call":
            start["arguments"] = ""
        elif item["type"] == "reasoning":
            start["summary"] = []
            start.pop("encrypted_content", None)
        self.add("response.output_item.added", output_index=index, item=start)
        streamed()
        done = {**item, "status": "completed"} if item["type"] != "reasoning" else item
        self.add("response.output_item.done", output_index=index, item=done)
        self.response["output"].append(done)


def response_stream(  # noqa: C901 - one event sequence, in the order the API sends it
    turn: ScriptTurn, model: str, number: int, input_estimate: int
) -> list[Any]:
    """The SSE frames of one streamed turn (with :data:`CUT` where a cut fault applies)."""
    f = _Frames(model, number)
    f.add("response.created", response=f.response)
    f.add("response.in_progress", response=f.response)
    if turn.fault == "unknown_event":
        f.out.append(": keep-alive comment\n\n")
        f.add("response.future_thing", future={"x": 1})
    index = 0
    if turn.thinking:
        rid = f"rs_fake{number}"
        summary = [{"type": "summary_text", "text": turn.thinking}]

        def reasoning() -> None:
            part = {"type": "summary_text", "text": ""}
            f.add("response.reasoning_summary_part.added", item_id=rid, output_index=0,
                  summary_index=0, part=part)  # fmt: skip
            for piece in chunk_text(turn.thinking):
                f.add("response.reasoning_summary_text.delta", item_id=rid, output_index=0,
                      summary_index=0, delta=piece)  # fmt: skip
            f.add("response.reasoning_summary_text.done", item_id=rid, output_index=0,
                  summary_index=0, text=turn.thinking)  # fmt: skip
            f.add("response.reasoning_summary_part.done", item_id=rid, output_index=0,
                  summary_index=0, part={**part, "text": turn.thinking})  # fmt: skip

        item = {
            "id": rid,
            "type": "reasoning",
            "summary": summary,
            "encrypted_content": encrypted_for(turn, number),
        }
        f.item(index, item, reasoning)
        index += 1
    for search in turn.web_searches:
        _web_search(f, index, f"ws_fake{number}_{index}", search)
        index += 1
    if turn.text:
        mid = f"msg_fake{number}"
        text_part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
        pieces = chunk_text(turn.text)
        broke: list[str] = []

        def message() -> None:
            at = {"item_id": mid, "output_index": index, "content_index": 0}
            f.add("response.content_part.added", **at, part=text_part)
            for n, piece in enumerate(pieces):
                f.add("response.output_text.delta", **at, delta=piece, logprobs=[])
                if turn.fault in BREAK_FAULTS and n == max(0, len(pieces) // 2 - 1):
                    broke.append(str(turn.fault))
                    return
            for n, note in enumerate(annotations):
                f.add("response.output_text.annotation.added", **at, annotation_index=n,
                      annotation=note)  # fmt: skip
            f.add("response.output_text.done", **at, text=turn.text, logprobs=[])
            done = {**text_part, "text": turn.text, "annotations": annotations}
            f.add("response.content_part.done", **at, part=done)

        annotations = [_url_citation(turn.text, c) for c in turn.citations]
        content = [{**text_part, "text": turn.text, "annotations": annotations}]
        item = {"id": mid, "type": "message", "role": "assistant", "content": content}
        f.item(index, item, message)
        if broke:
            del f.out[-1]  # the item never finished
            if broke[0] == "stream_error":
                f.add("error", code="server_error", message="Overloaded", param=None)
                return f.out
            return [*f.out, CUT]
        index += 1
    for call in turn.tool_calls:
        fid = f"fc_{call.id}"
        arguments = call.arguments[:-1] if turn.fault == "malformed_tool_json" else call.arguments

        def streamed(fid: str = fid, arguments: str = arguments, at: int = index) -> None:
            for piece in chunk_text(arguments, 10):
                f.add("response.function_call_arguments.delta", item_id=fid, output_index=at,
                      delta=piece)  # fmt: skip
            f.add("response.function_call_arguments.done", item_id=fid, output_index=at,
                  arguments=arguments)  # fmt: skip

        item = {
            "id": fid,
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments,
        }
        f.item(index, item, streamed)
        index += 1
    if turn.fault == "stream_error" and not turn.text:
        f.add("error", code="server_error", message="Overloaded", param=None)
        return f.out
    if turn.fault == "cut":
        return [*f.out, CUT]
    usage = _usage(turn, input_estimate)
    reason = turn.final_stop_reason
    if reason in _INCOMPLETE:
        details = {"reason": _INCOMPLETE[reason]}
        final = {**f.response, "status": "incomplete", "incomplete_details": details}
        f.add("response.incomplete", response={**final, "usage": usage})
    else:
        f.add("response.completed", response={**f.response, "status": "completed", "usage": usage})
    if turn.fault == "cut_at_end":  # the whole answer arrived, then the connection broke
        f.out.append(CUT)
    return f.out


def search_item(item_id: str, search: dict[str, Any]) -> dict[str, Any]:
    """The finished web_search_call item of one scripted search (sources: URLs only)."""
    sources = [{"type": "url", "url": r["url"]} for r in search.get("results") or []]
    action = {"type": "search", "query": search.get("query", ""), "sources": sources}
    status = "failed" if search.get("error") else "completed"
    return {"id": item_id, "type": "web_search_call", "status": status, "action": action}


def _web_search(f: _Frames, index: int, item_id: str, search: dict[str, Any]) -> None:
    item = search_item(item_id, search)
    start = {**item, "status": "in_progress", "action": {"type": "search", "query": ""}}
    f.add("response.output_item.added", output_index=index, item=start)
    for stage in ("in_progress", "searching", "completed"):
        f.add(f"response.web_search_call.{stage}", item_id=item_id, output_index=index)
    f.add("response.output_item.done", output_index=index, item=item)
    f.response["output"].append(item)


def _url_citation(text: str, citation: dict[str, Any]) -> dict[str, Any]:
    cited = citation.get("cited_text", "")
    start = max(text.find(cited), 0) if cited else 0
    return {
        "type": "url_citation",
        "url": citation["url"],
        "title": citation.get("title", ""),
        "start_index": start,
        "end_index": start + len(cited),
    }


def failed_stream(model: str, number: int, code: str, message: str) -> list[Any]:
    """A stream that ends in ``response.failed`` (how the API reports a failure after 200)."""
    f = _Frames(model, number)
    f.add("response.created", response=f.response)
    error = {"code": code, "message": message}
    f.add("response.failed", response={**f.response, "status": "failed", "error": error})
    return f.out
