"""What goes on the wire: our conversation as each API's request, as the fake server received it."""

from __future__ import annotations

import json
from typing import Any

from agent_tui.config import ModelConfig
from agent_tui.conversation import (
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.providers.anthropic import messages_body
from agent_tui.providers.base import ProviderRequest, ToolSpec
from agent_tui.providers.openai import OpenAIProvider, completions_body
from tests.fakes.llm_server import FakeLLM

from .conftest import ProviderFactory, anthropic_only, collect, openai_only

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}


def tool_loop_request(**kwargs: Any) -> ProviderRequest:
    messages = [
        user_text("read a.py and b.py"),
        Message(
            "assistant",
            [
                ThinkingBlock("I need both files.", signature="sig-1"),
                ThinkingBlock("never signed", signature=""),
                ThinkingBlock("", redacted="EncRedacted=="),
                ThinkingBlock("Plan: read both.", encrypted="EncReasoning=="),  # Responses only
                TextBlock("Reading."),
                ToolUseBlock("call_1", "read_file", {"path": "a.py"}),
                ToolUseBlock("call_2", "read_file", {"path": "b.py"}),
            ],
        ),
        Message(
            "user",
            [
                ToolResultBlock("call_1", "print(1)"),
                ToolResultBlock("call_2", "no such file", is_error=True),
                TextBlock("and be quick"),
            ],
        ),
        Message("assistant", [TextBlock("  ")]),  # a turn cancelled before any text
        user_text("next"),
    ]
    return ProviderRequest(
        model="test-model",
        system="You are terse.",
        messages=messages,
        tools=[
            ToolSpec("read_file", "Read a file.", SCHEMA),
            ToolSpec("list_dir", "List.", SCHEMA),
        ],
        **kwargs,
    )


async def sent_body(
    fake_llm: FakeLLM, build_provider: ProviderFactory, request: ProviderRequest
) -> dict[str, Any]:
    fake_llm.set_script([{"text": "ok"}])
    await collect(build_provider(), request)
    assert len(fake_llm.requests) == 1
    return fake_llm.requests[0]


async def test_request_body_on_the_wire(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str], api_key: str
) -> None:
    body = await sent_body(fake_llm, build_provider, tool_loop_request(temperature=0.2))
    headers = {k.lower(): v for k, v in fake_llm.received[0]["headers"].items()}
    assert body["model"] == "test-model" and body["stream"] is True
    assert body["temperature"] == 0.2
    if combo[1] == "httpx":
        assert headers["user-agent"].startswith("agent-tui/")
    if combo[0] == "anthropic":
        check_anthropic(body)
        assert (
            headers.get("x-api-key") == api_key
            or headers.get("authorization") == f"Bearer {api_key}"
        )
        assert headers["anthropic-version"]
    elif combo[0] == "responses":
        check_responses(body)
        assert headers["authorization"] == f"Bearer {api_key}"
    else:
        check_openai(body)
        assert headers["authorization"] == f"Bearer {api_key}"


def check_anthropic(body: dict[str, Any]) -> None:
    cache = {"type": "ephemeral"}
    assert body["system"] == [{"type": "text", "text": "You are terse.", "cache_control": cache}]
    assert body["max_tokens"] == 8192
    assert [t["name"] for t in body["tools"]] == ["read_file", "list_dir"]
    assert body["tools"][0]["input_schema"] == SCHEMA
    assert body["tools"][-1]["cache_control"] == cache
    messages = body["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "user",
    ]  # blank turn dropped
    assert messages[1]["content"] == [
        {
            "type": "thinking",
            "thinking": "I need both files.",
            "signature": "sig-1",
        },  # kept, signed
        {"type": "redacted_thinking", "data": "EncRedacted=="},  # kept, unchanged
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "id": "call_1", "name": "read_file", "input": {"path": "a.py"}},
        {"type": "tool_use", "id": "call_2", "name": "read_file", "input": {"path": "b.py"}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_1", "content": "print(1)"},
        {
            "type": "tool_result",
            "tool_use_id": "call_2",
            "content": "no such file",
            "is_error": True,
        },
        {"type": "text", "text": "and be quick"},
    ]
    assert messages[-1]["content"] == [{"type": "text", "text": "next", "cache_control": cache}]


def check_openai(body: dict[str, Any]) -> None:
    assert body["stream_options"] == {"include_usage": True}
    assert body["max_tokens"] == 8192 and "max_completion_tokens" not in body  # not api.openai.com
    assert body["tools"][0] == {
        "type": "function",
        "function": {"name": "read_file", "description": "Read a file.", "parameters": SCHEMA},
    }
    messages = body["messages"]
    assert messages[0] == {"role": "system", "content": "You are terse."}
    assert messages[1] == {"role": "user", "content": "read a.py and b.py"}
    assistant = messages[2]
    assert assistant["role"] == "assistant" and assistant["content"] == "Reading."
    assert [
        (c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
        for c in assistant["tool_calls"]
    ] == [
        ("call_1", "read_file", {"path": "a.py"}),
        ("call_2", "read_file", {"path": "b.py"}),
    ]
    # Tool results follow the assistant message directly, before the user's text.
    assert messages[3:6] == [
        {"role": "tool", "tool_call_id": "call_1", "content": "print(1)"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Error: no such file"},
        {"role": "user", "content": "and be quick"},
    ]
    assert messages[6:] == [{"role": "user", "content": "next"}]  # blank assistant turn dropped
    assert "I need both files" not in json.dumps(body)  # thinking has no place here
    assert "EncRedacted" not in json.dumps(body)
    assert "EncReasoning" not in json.dumps(body)


def check_responses(body: dict[str, Any]) -> None:
    assert body["store"] is False and body["include"] == ["reasoning.encrypted_content"]
    assert body["instructions"] == "You are terse." and body["max_output_tokens"] == 8192
    assert body["tools"][0] == {
        "type": "function",
        "name": "read_file",
        "description": "Read a file.",
        "parameters": SCHEMA,
        "strict": False,
    }
    items = body["input"]
    assert items[0] == {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "read a.py and b.py"}],
    }
    # Only the encrypted reasoning goes back; Anthropic's signed and redacted thinking do not.
    assert items[1] == {
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Plan: read both."}],
        "encrypted_content": "EncReasoning==",
    }
    assert items[2] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Reading."}],
    }
    assert [(i["type"], i["call_id"], json.loads(i["arguments"])) for i in items[3:5]] == [
        ("function_call", "call_1", {"path": "a.py"}),
        ("function_call", "call_2", {"path": "b.py"}),
    ]
    assert items[5:] == [
        {"type": "function_call_output", "call_id": "call_1", "output": "print(1)"},
        {"type": "function_call_output", "call_id": "call_2", "output": "Error: no such file"},
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "and be quick"}],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "next"}]},
    ]
    assert "I need both files" not in json.dumps(body) and "EncRedacted" not in json.dumps(body)


@anthropic_only
async def test_anthropic_thinking_budget(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str]
) -> None:
    body = await sent_body(
        fake_llm, build_provider, tool_loop_request(thinking_budget=10000, temperature=0.5)
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 10000}
    assert body["max_tokens"] > 10000  # room for the answer after the thinking
    assert "temperature" not in body  # the API refuses temperature with thinking


@openai_only
async def test_openai_reasoning_effort_only_when_configured(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str]
) -> None:
    body = await sent_body(fake_llm, build_provider, tool_loop_request(reasoning_effort="high"))
    assert body["reasoning_effort"] == "high"
    # Left out unless configured: reasoning-less models and local servers reject it.
    assert "reasoning_effort" not in completions_body(tool_loop_request(), official=True)


def test_anthropic_has_no_reasoning_effort() -> None:
    body = messages_body(tool_loop_request(reasoning_effort="high"))
    assert "reasoning_effort" not in json.dumps(body)


def test_official_openai_gets_max_completion_tokens() -> None:
    request = tool_loop_request()
    config = ModelConfig("openai", "gpt-4.1", "https://api.openai.com/v1", "OPENAI_API_KEY")
    body = OpenAIProvider(config).build_body(request)
    assert body["max_completion_tokens"] == 8192 and "max_tokens" not in body
    assert completions_body(request, official=False)["max_tokens"] == 8192
