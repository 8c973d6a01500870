"""Both providers over both transports, through real HTTP to the fake server: the happy paths."""

from __future__ import annotations

import json
from dataclasses import replace

from agent_tui.agent.assemble import RoundAssembler
from agent_tui.conversation import Message, ToolResultBlock
from agent_tui.providers.base import (
    Stop,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
)
from tests.fakes.llm_server import FakeLLM

from .conftest import ProviderFactory, anthropic_only, collect, simple_request


def text_of(events: list[object]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def tool_calls(events: list[object]) -> dict[int, dict[str, object]]:
    calls: dict[int, dict[str, object]] = {}
    for event in events:
        if isinstance(event, ToolCallStart):
            calls[event.index] = {"id": event.id, "name": event.name, "args": "", "ended": False}
        elif isinstance(event, ToolCallDelta):
            calls[event.index]["args"] += event.arguments  # type: ignore[operator]
        elif isinstance(event, ToolCallEnd):
            calls[event.index]["ended"] = True
    return calls


async def test_text_streams_in_several_deltas(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    answer = "The answer is forty-two, and here is a longer sentence to chunk."
    fake_llm.set_script([{"text": answer, "usage": {"input_tokens": 30, "output_tokens": 12}}])
    events = await collect(build_provider())
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3  # really streamed, not one blob
    assert text_of(events) == answer
    assert events[-1] == Stop("end_turn")
    usage = [e for e in events if isinstance(e, Usage)]
    assert len(usage) == 1 and usage[0].input_tokens == 30 and usage[0].output_tokens == 12


async def test_parallel_tool_calls_arrive_whole_and_in_order(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script(
        [
            {
                "text": "Reading both.",
                "tool_calls": [
                    {
                        "id": "call_a",
                        "name": "read_file",
                        "input": {"path": "src/a very long name.py"},
                    },
                    {"id": "call_b", "name": "list_dir", "input": {"path": "."}},
                    {"id": "call_c", "name": "get_changed_files", "input": {}},
                ],
            }
        ]
    )
    events = await collect(build_provider())
    calls = tool_calls(events)
    assert [calls[i]["id"] for i in range(3)] == ["call_a", "call_b", "call_c"]
    assert [calls[i]["name"] for i in range(3)] == ["read_file", "list_dir", "get_changed_files"]
    assert json.loads(calls[0]["args"]) == {"path": "src/a very long name.py"}  # type: ignore[arg-type]
    assert json.loads(calls[1]["args"]) == {"path": "."}  # type: ignore[arg-type]
    assert json.loads(calls[2]["args"]) == {}  # type: ignore[arg-type]
    assert all(c["ended"] for c in calls.values())
    assert events[-1] == Stop("tool_use")
    # Deltas never arrive for a call before its start or after its end.
    seen_end: set[int] = set()
    for event in events:
        if isinstance(event, ToolCallDelta):
            assert event.index not in seen_end
        if isinstance(event, ToolCallEnd):
            seen_end.add(event.index)


async def test_thinking_streams_before_text(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"thinking": "First I consider the question carefully.", "text": "Done."}])
    events = await collect(build_provider())
    thinking = [e for e in events if isinstance(e, ThinkingDelta)]
    assert "".join(t.text for t in thinking) == "First I consider the question carefully."
    first_text = next(i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert all(events.index(t) < first_text for t in thinking)


@anthropic_only
async def test_anthropic_thinking_signature_arrives(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str]
) -> None:
    fake_llm.set_script([{"thinking": "hmm", "signature": "sig-abc", "text": "ok"}])
    events = await collect(build_provider())
    assert [e.signature for e in events if isinstance(e, ThinkingDelta) and e.signature] == [
        "sig-abc"
    ]


@anthropic_only
async def test_anthropic_thinking_and_redacted_thinking_go_back_unchanged(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str]
) -> None:
    # With extended thinking, the API rejects a tool-use loop whose assistant turn lost or altered
    # a thinking block, signed or redacted; so both are kept, apart and in order.
    call = {"id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}}
    fake_llm.set_script(
        [
            {
                "thinking": "I should read a.py.",
                "signature": "sig-1",
                "redacted_thinking": "EncryptedBlob==",
                "tool_calls": [call],
            },
            {"text": "done"},
        ]
    )
    first = simple_request()
    assembler = RoundAssembler()
    for event in await collect(build_provider(), first):
        assembler.feed(event)
    calls = assembler.finished_calls()
    reply = Message("user", [ToolResultBlock("toolu_1", "print(1)")])
    second = replace(first, messages=[*first.messages, assembler.message(calls), reply])
    await collect(build_provider(), second)
    assistant = fake_llm.requests[1]["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "I should read a.py.", "signature": "sig-1"},
        {"type": "redacted_thinking", "data": "EncryptedBlob=="},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.py"}},
    ]


async def test_max_tokens_stop_reason_is_normalised(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "cut short", "stop_reason": "max_tokens"}])
    events = await collect(build_provider())
    assert events[-1] == Stop("max_tokens")


async def test_one_provider_serves_several_requests(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "one"}, {"text": "two"}])
    provider = build_provider()
    first = [e async for e in provider.stream(simple_request())]
    second = await collect(provider, simple_request("again"))
    assert (text_of(first), text_of(second)) == ("one", "two")
    last = fake_llm.requests[-1]
    assert "again" in json.dumps((last.get("messages") or last.get("input"))[-1])


async def test_consumer_stopping_early_leaves_the_provider_usable(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script(
        [{"text": "a long answer that the user cancels half way"}, {"text": "next"}]
    )
    provider = build_provider()
    stream = provider.stream(simple_request())
    async for _event in stream:
        break  # like Esc: the agent stops consuming
    await stream.aclose()  # type: ignore[attr-defined]
    events = await collect(provider)
    assert text_of(events) == "next"


async def test_client_is_created_lazily_and_closed(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "hi"}])
    provider = build_provider()
    assert provider._http is None and provider._sdk_client is None
    await collect(provider)
    assert provider._http is None and provider._sdk_client is None  # aclose() released it
    await provider.aclose()  # twice is harmless
