"""The fake LLM server itself: its frames are what the official SDK types accept, its endpoints work."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pydantic
import pytest

from agent_tui.providers.script import parse_turn
from tests.fakes import wire_anthropic, wire_openai
from tests.fakes.llm_server import FakeLLM

REPO = Path(__file__).resolve().parents[2]
FULL_TURN = {
    "thinking": "Thinking it over.",
    "text": "Here you go, in several chunks of text.",
    "tool_calls": [
        {"id": "call_1", "name": "read_file", "input": {"path": "a.py"}},
        {"id": "call_2", "name": "list_dir", "input": {"path": "."}},
    ],
    "usage": {"input_tokens": 11, "output_tokens": 7},
}


def sse_payloads(frames: list[Any]) -> list[dict[str, Any]]:
    out = []
    for frame in frames:
        for line in str(frame).splitlines():
            if line.startswith("data: ") and line != "data: [DONE]":
                out.append(json.loads(line[6:]))
    return out


def test_anthropic_frames_validate_against_the_sdk_types() -> None:
    from anthropic.types import Message, RawMessageStreamEvent

    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(RawMessageStreamEvent)
    turn = parse_turn(FULL_TURN)
    payloads = sse_payloads(wire_anthropic.message_stream(turn, "m", 1, 10))
    types = [p["type"] for p in payloads]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    for payload in payloads:
        if payload["type"] != "ping":
            adapter.validate_python(payload)
    delta_types = {p["delta"]["type"] for p in payloads if p["type"] == "content_block_delta"}
    assert delta_types == {"thinking_delta", "signature_delta", "text_delta", "input_json_delta"}
    Message.model_validate(wire_anthropic.message_json(turn, "m", 1, 10))


def test_openai_chunks_validate_against_the_sdk_types() -> None:
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    turn = parse_turn(FULL_TURN)
    payloads = sse_payloads(wire_openai.completion_stream(turn, "m", 1, 10, include_usage=True))
    for payload in payloads:
        ChatCompletionChunk.model_validate(payload)
    assert payloads[-1]["choices"] == [] and payloads[-1]["usage"]["prompt_tokens"] == 11
    assert payloads[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert all(p["usage"] is None for p in payloads[:-1])
    completion = ChatCompletion.model_validate(wire_openai.completion_json(turn, "m", 1, 10))
    assert completion.choices[0].message.tool_calls is not None
    assert len(completion.choices[0].message.tool_calls) == 2


def test_no_usage_chunk_unless_asked() -> None:
    payloads = sse_payloads(
        wire_openai.completion_stream(parse_turn({"text": "x"}), "m", 1, 1, False)
    )
    assert all("usage" not in p for p in payloads)


async def test_sdks_parse_non_streaming_responses(fake_llm: FakeLLM) -> None:
    import anthropic
    import openai

    fake_llm.set_script([FULL_TURN, FULL_TURN])
    client = anthropic.AsyncAnthropic(api_key="k", base_url=fake_llm.url, max_retries=0)
    message = await client.messages.create(
        model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
    )
    assert [b.type for b in message.content] == ["thinking", "text", "tool_use", "tool_use"]
    assert message.stop_reason == "tool_use" and message.usage.output_tokens == 7
    oclient = openai.AsyncOpenAI(api_key="k", base_url=fake_llm.openai_url, max_retries=0)
    completion = await oclient.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "hi"}]
    )
    assert completion.choices[0].message.content == FULL_TURN["text"]
    assert completion.choices[0].finish_reason == "tool_calls"
    await client.close()
    await oclient.close()


def test_requests_endpoint_auth_checks_and_script_endpoint(fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "one"}])
    with httpx.Client(base_url=fake_llm.url) as client:
        no_key = client.post("/v1/messages", json={"model": "m", "stream": False})
        assert no_key.status_code == 401
        assert no_key.json()["error"]["type"] == "authentication_error"
        no_version = client.post("/v1/messages", json={"model": "m"}, headers={"x-api-key": "k"})
        assert no_version.status_code == 400
        ok = client.post(
            "/v1/chat/completions",
            json={"model": "m", "n": 1},
            headers={"authorization": "Bearer k"},
        )
        assert ok.json()["choices"][0]["message"]["content"] == "one"
        exhausted = client.post(
            "/v1/chat/completions", json={"model": "m"}, headers={"authorization": "Bearer k"}
        )
        assert exhausted.status_code == 400 and "no turn 2" in exhausted.json()["error"]["message"]
        assert client.post("/_script", json=[{"text": "two"}]).json() == {"turns": 1}
        again = client.post(
            "/v1/chat/completions", json={"model": "m"}, headers={"authorization": "Bearer k"}
        )
        assert again.json()["choices"][0]["message"]["content"] == "two"
        recorded = client.get("/_requests").json()
    assert [r.get("n") for r in recorded] == [None, None, 1, None, None]
    assert recorded == fake_llm.requests


def test_standalone_server_prints_its_url_and_serves(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"text": "from a file"}) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--script", str(script), "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        answer = httpx.post(
            url + "/v1/messages",
            json={"model": "m", "max_tokens": 5, "messages": []},
            headers={"x-api-key": "k", "anthropic-version": "2023-06-01"},
        )
        assert answer.json()["content"] == [{"type": "text", "text": "from a file"}]
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0


def test_bad_script_is_refused_with_the_turn_and_key(tmp_path: Path) -> None:
    from agent_tui.errors import ConfigError

    script = tmp_path / "bad.json"
    script.write_text(json.dumps([{"text": "ok"}, {"tool_calls": [{"input": {}}]}]))
    with pytest.raises(ConfigError) as info:
        FakeLLM(script)
    assert "turn 2.tool_calls[0]" in str(info.value) and "name" in str(info.value)
