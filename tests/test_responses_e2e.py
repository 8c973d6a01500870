"""`agent-tui -p` over the OpenAI Responses API (issue 14.1), a real process against the fake server,
both transports: streamed text, reasoning summaries shown as thinking, function calls, usage with
cached and reasoning tokens, encrypted reasoning carried back, retries and error messages.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api

KEY = "sk-test-SECRET-responses"
TRANSPORTS = ["httpx", "sdk"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"main.py": 'print("the-file-text-42")\n'})


def run(
    ws: Path,
    fake: FakeLLM,
    transport: str,
    *args: str,
    wire: tuple[str, ...] = ("--wire-api", "responses"),
) -> subprocess.CompletedProcess[str]:
    flags = ("--transport", transport, *wire)
    return run_on_api(ws, fake, "openai", *flags, *args, key=KEY, model="gpt-5-codex", timeout=90)


def lines(proc: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_tool_loop_with_reasoning_carried_back(ws: Path, fake_llm: FakeLLM, transport: str) -> None:
    fake_llm.set_script(
        [
            {
                "thinking": "I should read main.py first.",
                "signature": "gAAAA-encrypted-reasoning-1",
                "text": "Reading it.",
                "tool_calls": [{"id": "call_r1", "name": "read_file", "input": {"path": "main.py"}}],
                "usage": {"input_tokens": 500, "output_tokens": 60, "cached_tokens": 400,
                          "reasoning_tokens": 32},
            },
            {"text": "It prints a greeting.", "usage": {"input_tokens": 700, "output_tokens": 9}},
        ]
    )  # fmt: skip
    proc = run(
        ws, fake_llm, transport, "-p", "what does main.py do?", "--output-format", "stream-json"
    )
    assert proc.returncode == 0, proc.stderr
    events = lines(proc)
    thinking = "".join(e["text"] for e in events if e["type"] == "thinking_delta")
    assert thinking == "I should read main.py first."
    result = events[-1]
    assert result["result"] == "It prints a greeting." and result["rounds"] == 2
    assert result["tool_calls"] == [{"id": "call_r1", "name": "read_file", "is_error": False}]
    assert result["usage"] == {
        "input_tokens": 100 + 700,
        "output_tokens": 69,
        "cache_read_tokens": 400,
        "cache_write_tokens": 0,
        "reasoning_tokens": 32,
        # The last request's prompt against the model's known window (gpt-5 class: 400k).
        "context_tokens": 700,
        "context_window": 400_000,
        "context_limit": 400_000 - 8_192,  # less the reply's share (max_tokens)
        "context_percent": 0,
    }
    paths = [r["path"] for r in fake_llm.received]
    assert paths == ["/v1/responses", "/v1/responses"]
    first, second = fake_llm.requests
    assert first["store"] is False and first["include"] == ["reasoning.encrypted_content"]
    # The second request carries the whole exchange back, reasoning first, as the API wants it.
    items = second["input"]
    assert [i["type"] for i in items] == [
        "message",
        "reasoning",
        "message",
        "function_call",
        "function_call_output",
    ]
    assert items[1]["encrypted_content"] == "gAAAA-encrypted-reasoning-1"
    assert items[1]["summary"] == [{"type": "summary_text", "text": "I should read main.py first."}]
    assert items[3]["call_id"] == items[4]["call_id"] == "call_r1"
    assert "the-file-text-42" in items[4]["output"]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_rate_limit_and_server_errors_are_retried(
    ws: Path, fake_llm: FakeLLM, transport: str
) -> None:
    fake_llm.set_script(
        [{"text": "finally", "fault": {"status": 429, "times": 1, "retry_after": 0}}]
    )
    proc = run(ws, fake_llm, transport, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "finally"
    assert len(fake_llm.requests) == 2
    fake_llm.set_script([{"text": "x", "fault": {"status": 503, "times": 9, "retry_after": 0}}])
    proc = run(ws, fake_llm, transport, "-p", "hi")
    assert proc.returncode == 1
    assert "is failing (HTTP 503" in proc.stderr and "gave up after 4 retries" in proc.stderr
    assert KEY not in proc.stderr + proc.stdout


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_refused_key_and_stream_error_messages(ws: Path, fake_llm: FakeLLM, transport: str) -> None:
    fake_llm.set_script([{"text": "x", "fault": {"status": 401}}])
    proc = run(ws, fake_llm, transport, "-p", "hi")
    assert proc.returncode != 0
    assert "the API key in $OPENAI_API_KEY was refused" in proc.stderr
    assert KEY not in proc.stderr + proc.stdout
    fake_llm.set_script([{"text": "half of an answer that breaks", "fault": "stream_error"}])
    proc = run(ws, fake_llm, transport, "-p", "hi")
    assert proc.returncode == 1
    assert "broke off (Overloaded)" in proc.stderr


def test_default_is_chat_for_a_local_server(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "chat it is"}])
    proc = run(ws, fake_llm, "httpx", "-p", "hi", wire=())
    assert proc.returncode == 0, proc.stderr
    assert [r["path"] for r in fake_llm.received] == ["/v1/chat/completions"]
