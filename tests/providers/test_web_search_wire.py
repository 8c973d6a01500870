"""The providers' own web search on the wire: the fake server's frames are what the official SDKs'
types accept, the reducers read them into searches, sources and citations, and what goes back in
the next request (the server blocks, the tool entry) is what the SDKs' request types accept."""

from __future__ import annotations

from typing import Any

import pydantic

from agent_tui.agent.assemble import RoundAssembler
from agent_tui.conversation import Message, ServerToolBlock, TextBlock, user_text
from agent_tui.providers.anthropic import messages_body
from agent_tui.providers.anthropic_reduce import AnthropicReducer
from agent_tui.providers.base import (
    Citation,
    ProviderEvent,
    ProviderRequest,
    ServerBlock,
    ToolSpec,
    WebSearch,
    WebSource,
)
from agent_tui.providers.responses import responses_body
from agent_tui.providers.responses_reduce import ResponsesReducer
from agent_tui.providers.script import parse_turn
from tests.fakes import wire_anthropic, wire_responses
from tests.providers.test_fake_server import sse_payloads

TURN = parse_turn(
    {
        "web_searches": [
            {
                "query": "python 3.13 release date",
                "results": [
                    {"title": "Python 3.13.0", "url": "https://www.python.org/downloads/3.13/"},
                    {"title": "PEP 719", "url": "https://peps.python.org/pep-0719/"},
                ],
            },
            {"query": "again", "error": "max_uses_exceeded"},
        ],
        "text": "Python 3.13 came out on 7 October 2024.",
        "citations": [
            {
                "url": "https://peps.python.org/pep-0719/",
                "title": "PEP 719",
                "cited_text": "7 October 2024",
            }
        ],
    }
)
SOURCES = (
    WebSource("Python 3.13.0", "https://www.python.org/downloads/3.13/"),
    WebSource("PEP 719", "https://peps.python.org/pep-0719/"),
)


def _reduce(reducer: Any, payloads: list[dict[str, Any]]) -> list[ProviderEvent]:
    out: list[ProviderEvent] = []
    for payload in payloads:
        out += reducer.feed(payload)
    return out + reducer.finish()


def test_anthropic_frames_validate_and_reduce_to_searches_and_citations() -> None:
    from anthropic.types import RawMessageStreamEvent

    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(RawMessageStreamEvent)
    payloads = sse_payloads(wire_anthropic.message_stream(TURN, "m", 1, 10))
    for payload in payloads:
        if payload["type"] != "ping":
            adapter.validate_python(payload, strict=False)
    starts = [p["content_block"]["type"] for p in payloads if p["type"] == "content_block_start"]
    assert starts[:4] == ["server_tool_use", "web_search_tool_result"] * 2

    events = _reduce(AnthropicReducer(), payloads)

    searches = [e for e in events if isinstance(e, WebSearch)]
    assert searches == [
        WebSearch("python 3.13 release date", SOURCES),
        WebSearch("again", error="max_uses_exceeded"),
    ]
    assert [e for e in events if isinstance(e, Citation)] == [
        Citation("https://peps.python.org/pep-0719/", "PEP 719", "7 October 2024")
    ]
    kept = [e.raw for e in events if isinstance(e, ServerBlock)]
    expected = wire_anthropic.search_blocks("srvtoolu_fake1_0", TURN.web_searches[0])
    assert kept[:2] == expected  # the use's streamed input put back together


def test_anthropic_request_sends_the_blocks_back_in_place_and_offers_the_tool() -> None:
    from anthropic.types import MessageParam, ToolUnionParam

    assembler = RoundAssembler()
    for event in _reduce(
        AnthropicReducer(), sse_payloads(wire_anthropic.message_stream(TURN, "m", 1, 10))
    ):
        assembler.feed(event)
    answer = assembler.message([])
    assert [type(b).__name__ for b in answer.content] == ["ServerToolBlock"] * 4 + ["TextBlock"]
    request = ProviderRequest(
        "m",
        "sys",
        [user_text("when?"), answer, user_text("thanks")],
        tools=[ToolSpec("read_file", "Read.", {"type": "object"})],
        web_search_uses=3,
    )

    body = messages_body(request)

    assert body["tools"][0] == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    pydantic.TypeAdapter(list[ToolUnionParam]).validate_python(body["tools"])
    pydantic.TypeAdapter(list[MessageParam]).validate_python(body["messages"])
    sent = body["messages"][1]["content"]
    assert [b["type"] for b in sent] == [
        "server_tool_use",
        "web_search_tool_result",
        "server_tool_use",
        "web_search_tool_result",
        "text",
    ]
    assert sent[1]["content"][0]["encrypted_content"] == "enc-srvtoolu_fake1_0-0"


def test_responses_frames_validate_and_reduce_to_searches_and_citations() -> None:
    from openai.types.responses import ResponseStreamEvent

    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseStreamEvent)
    payloads = sse_payloads(wire_responses.response_stream(TURN, "m", 1, 10))
    for payload in payloads:
        adapter.validate_python(payload)

    events = _reduce(ResponsesReducer(), payloads)

    searches = [e for e in events if isinstance(e, WebSearch)]
    urls = tuple(WebSource("", s.url) for s in SOURCES)  # Responses gives URLs only
    assert searches == [
        WebSearch("python 3.13 release date", urls),
        WebSearch("again", (), "failed"),
    ]
    assert [e for e in events if isinstance(e, Citation)] == [
        Citation("https://peps.python.org/pep-0719/", "PEP 719")
    ]


def test_responses_request_sends_the_search_items_back_and_asks_for_sources() -> None:
    from openai.types.responses import ResponseFunctionWebSearchParam, ToolParam

    item = wire_responses.search_item("ws_1", TURN.web_searches[0])
    answer = Message(
        "assistant", [ServerToolBlock("responses", item), TextBlock("It came out in 2024.")]
    )
    foreign = Message("assistant", [ServerToolBlock("anthropic", {"type": "server_tool_use"})])
    request = ProviderRequest(
        "m", "", [user_text("when?"), answer, user_text("ok"), foreign], web_search_uses=5
    )

    body = responses_body(request)

    assert body["tools"] == [{"type": "web_search"}]
    assert "web_search_call.action.sources" in body["include"]
    pydantic.TypeAdapter(list[ToolParam]).validate_python(body["tools"])
    pydantic.TypeAdapter(ResponseFunctionWebSearchParam).validate_python(body["input"][1])
    assert body["input"][1] == item  # as it came; the other API's block is left out
    assert [i.get("type") for i in body["input"]] == [
        "message",
        "web_search_call",
        "message",
        "message",
    ]


def test_no_tool_offered_unless_asked() -> None:
    request = ProviderRequest("m", "", [user_text("hi")])
    assert "tools" not in messages_body(request)
    assert "tools" not in responses_body(request)
