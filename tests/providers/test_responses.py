"""The OpenAI Responses API wire format: the fake server's frames, the reducer, the provider."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from agent_tui.config import ModelConfig
from agent_tui.errors import ProviderError
from agent_tui.providers import make_provider
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
from agent_tui.providers.openai import OpenAIProvider
from agent_tui.providers.responses import ResponsesProvider
from agent_tui.providers.responses_reduce import ResponsesReducer
from agent_tui.providers.script import parse_turn
from tests.fakes import wire_responses

from .test_fake_server import FULL_TURN, sse_payloads

TURN = {
    **FULL_TURN,
    "usage": {
        "input_tokens": 110,
        "output_tokens": 70,
        "cached_tokens": 100,
        "reasoning_tokens": 40,
    },
}


def reduce(payloads: list[dict[str, Any]]) -> list[ProviderEvent]:
    reducer = ResponsesReducer()
    out = [e for p in payloads for e in reducer.feed(p)]
    return out + reducer.finish()


def test_fake_server_frames_validate_against_the_sdk_types() -> None:
    from openai.types.responses import ResponseStreamEvent

    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
    frames = wire_responses.response_stream(parse_turn(TURN), "m", 1, 10)
    payloads = sse_payloads(frames)
    for payload in payloads:
        adapter.validate_python(payload)
    # Each frame names its event as the API does, and the stream has no [DONE].
    assert all(str(f).startswith("event: ") for f in frames)
    kinds = [p["type"] for p in payloads]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    for kind in (
        "response.reasoning_summary_text.delta",
        "response.output_text.delta",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    ):
        assert kind in kinds
    for payload in sse_payloads(wire_responses.failed_stream("m", 1, "server_error", "boom")):
        adapter.validate_python(payload)
    incomplete = parse_turn({"text": "cut short", "stop_reason": "max_tokens"})
    for payload in sse_payloads(wire_responses.response_stream(incomplete, "m", 1, 10)):
        adapter.validate_python(payload)


def test_reducer_text_reasoning_calls_and_usage() -> None:
    payloads = sse_payloads(wire_responses.response_stream(parse_turn(TURN), "m", 3, 10))
    events = reduce(payloads)
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(e.text for e in thinking) == FULL_TURN["thinking"]
    assert thinking[-1].encrypted == "enc-3"  # the reasoning item's encrypted_content closes it
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == FULL_TURN["text"]
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert [(s.index, s.id, s.name) for s in starts] == [
        (0, "call_1", "read_file"),
        (1, "call_2", "list_dir"),
    ]
    args = {
        i: "".join(e.arguments for e in events if isinstance(e, ToolCallDelta) and e.index == i)
        for i in (0, 1)
    }
    assert args == {0: '{"path": "a.py"}', 1: '{"path": "."}'}
    assert [e.index for e in events if isinstance(e, ToolCallEnd)] == [0, 1]
    # input_tokens counts the cached ones: ours counts them apart.
    assert events[-2:] == [
        Usage(input_tokens=10, output_tokens=70, cache_read_tokens=100, reasoning_tokens=40),
        Stop("tool_use"),
    ]


def test_reducer_incomplete_response_says_why() -> None:
    turn = parse_turn({"text": "cut short", "stop_reason": "max_tokens"})
    events = reduce(sse_payloads(wire_responses.response_stream(turn, "m", 1, 10)))
    assert events[-1] == Stop("max_tokens")


def test_reducer_failed_response_and_error_event_raise() -> None:
    reducer = ResponsesReducer()
    failed = sse_payloads(wire_responses.failed_stream("m", 1, "server_error", "boom"))
    with pytest.raises(ProviderError, match="boom") as retryable:
        for payload in failed:
            reducer.feed(payload)
    assert retryable.value.retryable
    final = sse_payloads(
        wire_responses.failed_stream("m", 1, "context_length_exceeded", "too long")
    )
    with pytest.raises(ProviderError, match="too long") as not_retryable:
        reduce(final)
    assert not not_retryable.value.retryable
    with pytest.raises(ProviderError, match="Overloaded"):
        ResponsesReducer().feed({"type": "error", "message": "Overloaded", "sequence_number": 1})


def test_reducer_stream_without_terminal_event_is_incomplete() -> None:
    frames = wire_responses.response_stream(parse_turn({"text": "half"}), "m", 1, 10)
    payloads = sse_payloads(frames)[:-1]  # no response.completed
    reducer = ResponsesReducer()
    for payload in payloads:
        reducer.feed(payload)
    assert reducer.finish() == [] and not reducer.complete


def test_reducer_call_given_only_when_done_and_arguments_only_in_done() -> None:
    item = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "f", "arguments": "{}"}
    events = reduce(
        [
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {"type": "response.completed", "response": {"usage": None}},
        ]
    )
    assert events == [ToolCallStart(0, "c1", "f"), ToolCallDelta(0, "{}"), ToolCallEnd(0)] + [
        Stop("tool_use")
    ]


@pytest.mark.parametrize(
    ("base_url", "wire_api", "expected"),
    [
        ("https://api.openai.com/v1", None, ResponsesProvider),
        ("http://localhost:11434/v1", None, OpenAIProvider),
        ("https://api.openai.com/v1", "chat", OpenAIProvider),
        ("http://localhost:8080/v1", "responses", ResponsesProvider),
    ],
)
def test_wire_api_defaults_by_base_url(base_url: str, wire_api: str | None, expected: type) -> None:
    config = ModelConfig("openai", "m", base_url, "OPENAI_API_KEY", wire_api=wire_api)
    provider = make_provider(config)
    assert type(provider) is expected


def test_reasoning_effort_asks_for_summaries_only_when_configured() -> None:
    from agent_tui.conversation import user_text
    from agent_tui.providers.base import ProviderRequest
    from agent_tui.providers.responses import responses_body

    request = ProviderRequest(model="gpt-5-codex", system="s", messages=[user_text("hi")])
    assert "reasoning" not in responses_body(request)  # models without reasoning reject it
    effort = ProviderRequest(
        model="gpt-5-codex", system="s", messages=[user_text("hi")], reasoning_effort="high"
    )
    assert responses_body(effort)["reasoning"] == {"effort": "high", "summary": "auto"}
