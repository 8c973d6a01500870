"""The pure reducers, on recorded streams (tests/fixtures/streams) and on single events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ProviderError
from agent_tui.providers.anthropic_reduce import AnthropicReducer
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
from agent_tui.providers.openai_reduce import OpenAIReducer
from agent_tui.providers.sse import SSEParser

FIXTURES = Path(__file__).parent.parent / "fixtures" / "streams"


def wire_events(name: str) -> list[dict[str, Any]]:
    """A recorded stream as the httpx transport hands it to a reducer."""
    events = SSEParser().feed((FIXTURES / name).read_text())
    return [json.loads(e.data) for e in events if e.data != "[DONE]"]


def reduce(
    reducer: AnthropicReducer | OpenAIReducer, events: list[dict[str, Any]]
) -> list[ProviderEvent]:
    out = [e for wire in events for e in reducer.feed(wire)]
    return out + reducer.finish()


def test_anthropic_recorded_thinking_text_and_parallel_tools() -> None:
    reducer = AnthropicReducer()
    events = reduce(reducer, wire_events("anthropic_thinking_parallel_tools.sse"))
    assert reducer.complete
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(t.text for t in thinking) == (
        "The user wants main.py explained. I should read it and list the folder."
    )
    assert thinking[-1].signature.startswith("EqQBCgIYAhIM")
    assert (
        "".join(e.text for e in events if isinstance(e, TextDelta))
        == "I'll look at `main.py` first."
    )
    tool_events = [e for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)]
    assert tool_events == [
        ToolCallStart(0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read_file"),
        ToolCallDelta(0, '{"path": "ma'),
        ToolCallDelta(0, 'in.py", "start_line": 1}'),
        ToolCallEnd(0),
        ToolCallStart(1, "toolu_01Q7x9bMTvD5f6Pcxz3yqk7a", "get_changed_files"),
        ToolCallDelta(1, "{}"),  # no arguments streamed: valid JSON for the loop
        ToolCallEnd(1),
    ]
    assert [e for e in events if isinstance(e, Usage)] == [
        Usage(input_tokens=472, output_tokens=89, cache_read_tokens=2048, cache_write_tokens=0)
    ]
    assert events[-1] == Stop("tool_use")


def test_anthropic_error_event_mid_stream_raises_retryable_error() -> None:
    reducer = AnthropicReducer()
    wire = wire_events("anthropic_overloaded_midstream.sse")
    produced = [e for event in wire[:-1] for e in reducer.feed(event)]
    assert produced == [TextDelta("Partial ans")]
    with pytest.raises(ProviderError) as info:
        reducer.feed(wire[-1])
    assert info.value.retryable and info.value.status == 529
    assert "Overloaded" in str(info.value)
    assert not reducer.complete


def test_anthropic_invalid_request_error_event_is_not_retryable() -> None:
    with pytest.raises(ProviderError) as info:
        AnthropicReducer().feed(
            {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}
        )
    assert not info.value.retryable


def test_anthropic_unknown_events_and_blocks_are_ignored() -> None:
    reducer = AnthropicReducer()
    assert reducer.feed({"type": "future_event", "x": 1}) == []
    assert (
        reducer.feed(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "future_block", "data": "..."},
            }
        )
        == []
    )
    assert (
        reducer.feed(
            {"type": "content_block_delta", "index": 0, "delta": {"type": "future_delta", "v": 1}}
        )
        == []
    )
    assert reducer.feed({"type": "content_block_stop", "index": 0}) == []
    assert reducer.feed({}) == []


def test_anthropic_redacted_thinking_arrives_whole() -> None:
    reducer = AnthropicReducer()
    block = {"type": "redacted_thinking", "data": "EncBlob=="}
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    assert reducer.feed(start) == [ThinkingDelta("", redacted="EncBlob==")]
    assert reducer.feed({"type": "content_block_stop", "index": 0}) == []


def test_anthropic_tool_input_given_whole_at_block_start() -> None:
    # Some proxies put the input in content_block_start and stream no input_json_delta.
    reducer = AnthropicReducer()
    block = {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "x"}}
    events = reducer.feed({"type": "content_block_start", "index": 0, "content_block": block})
    events += reducer.feed({"type": "content_block_stop", "index": 0})
    assert events == [
        ToolCallStart(0, "t1", "read_file"),
        ToolCallDelta(0, '{"path": "x"}'),
        ToolCallEnd(0),
    ]


def test_anthropic_stop_without_message_delta_defaults_sensibly() -> None:
    reducer = AnthropicReducer()
    assert reducer.feed({"type": "message_stop"}) == [Stop("end_turn")]
    assert reducer.complete


def test_openai_recorded_parallel_tools_with_usage() -> None:
    reducer = OpenAIReducer()
    events = reduce(reducer, wire_events("openai_parallel_tools.sse"))
    assert reducer.complete
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Reading both files."
    tool_events = [e for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)]
    assert tool_events == [
        ToolCallStart(0, "call_9wX2a", "read_file"),
        ToolCallDelta(0, '{"path"'),
        ToolCallDelta(0, ': "a.py"}'),
        ToolCallStart(1, "call_7Hk1b", "read_file"),
        ToolCallDelta(1, '{"path": "b.py"}'),
        ToolCallEnd(0),
        ToolCallEnd(1),
    ]
    # prompt_tokens counts the cached ones; ours keeps them apart, like Anthropic's.
    assert events[-2:] == [
        Usage(input_tokens=176, output_tokens=61, cache_read_tokens=1024),
        Stop("tool_use"),
    ]


def test_openai_compatible_server_quirks() -> None:
    # Ollama-style: reasoning field, every call at index 0 with a new id, "stop" despite tools.
    reducer = OpenAIReducer()
    events = reduce(reducer, wire_events("openai_compat_quirks.sse"))
    assert [e for e in events if isinstance(e, ThinkingDelta)] == [
        ThinkingDelta("Two files to read.")
    ]
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    assert starts == [
        ToolCallStart(0, "call_a1", "read_file"),
        ToolCallStart(1, "call_b2", "list_dir"),
    ]
    assert [e for e in events if isinstance(e, ToolCallEnd)] == [ToolCallEnd(0), ToolCallEnd(1)]
    assert not any(isinstance(e, Usage) for e in events)  # the server sent none
    assert events[-1] == Stop("tool_use")


def test_openai_stream_without_finish_reason_is_incomplete() -> None:
    reducer = OpenAIReducer()
    reducer.feed({"choices": [{"index": 0, "delta": {"content": "half"}, "finish_reason": None}]})
    assert reducer.finish() == []
    assert not reducer.complete


@pytest.mark.parametrize(
    ("finish", "expected"),
    [
        ("stop", "end_turn"),
        ("length", "max_tokens"),
        ("content_filter", "refusal"),
        ("tool_calls", "tool_use"),
        ("odd", "odd"),
    ],
)
def test_openai_finish_reasons_are_normalised(finish: str, expected: str) -> None:
    reducer = OpenAIReducer()
    reducer.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    assert reducer.finish() == [Stop(expected)]


def test_openai_error_chunk_raises() -> None:
    with pytest.raises(ProviderError, match="upstream failed"):
        OpenAIReducer().feed({"error": {"message": "upstream failed", "code": 502}})


def test_openai_unknown_chunks_and_other_choices_are_ignored() -> None:
    reducer = OpenAIReducer()
    assert reducer.feed({"object": "chat.completion.future", "choices": []}) == []
    assert reducer.feed({"choices": [{"index": 1, "delta": {"content": "n=2 choice"}}]}) == []
    assert reducer.feed({"choices": [{"index": 0, "delta": {"refusal": "I can't."}}]}) == [
        TextDelta("I can't.")
    ]
