"""Injected faults, over both APIs and both transports: retries, cuts, bad JSON, auth, 404."""

from __future__ import annotations

import logging
import socket

import pytest

from agent_tui.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderNotFoundError,
    ProviderRateLimitError,
    StreamInterrupted,
)
from agent_tui.providers.base import Stop, ToolCallDelta, ToolCallEnd, ToolCallStart
from tests.fakes.llm_server import FakeLLM

from .conftest import ProviderFactory, Sleeps, collect, collect_error
from .test_streaming import text_of


@pytest.mark.parametrize("status", [429, 529, 500, 503])
async def test_transient_status_is_retried_then_succeeds(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps, status: int
) -> None:
    fake_llm.set_script([{"text": "finally", "fault": {"status": status, "times": 2}}])
    events = await collect(build_provider())
    assert text_of(events) == "finally"
    assert len(fake_llm.requests) == 3
    assert len(sleeps) == 2
    assert sleeps[1] > sleeps[0]  # exponential backoff (jitter is at most 25%)


async def test_retry_after_header_is_honoured(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([{"text": "ok", "fault": {"status": 429, "times": 1, "retry_after": 7}}])
    await collect(build_provider())
    assert sleeps == [7.0]


async def test_retry_after_is_capped(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([{"text": "ok", "fault": {"status": 529, "times": 1, "retry_after": 3600}}])
    await collect(build_provider())
    assert sleeps == [60.0]


async def test_real_wait_for_a_short_retry_after(
    fake_llm: FakeLLM, combo: tuple[str, str], api_key: str
) -> None:
    # With the real asyncio.sleep: the retry happens and the turn completes.
    from agent_tui.config import ModelConfig
    from agent_tui.providers.anthropic import AnthropicProvider
    from agent_tui.providers.openai import OpenAIProvider

    api, transport = combo
    fake_llm.set_script([{"text": "after wait", "fault": {"status": 529, "retry_after": 0.05}}])
    url = fake_llm.url if api == "anthropic" else fake_llm.openai_url
    config = ModelConfig(api, "m", url, "AGENT_TUI_TEST_API_KEY", transport=transport)
    provider = (AnthropicProvider if api == "anthropic" else OpenAIProvider)(config)
    assert text_of(await collect(provider)) == "after wait"


async def test_retries_run_out(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([{"text": "never", "fault": {"status": 529, "times": 10}}])
    events, error = await collect_error(build_provider(max_retries=2))
    assert events == []
    assert isinstance(error, ProviderRateLimitError)
    assert error.status == 529 and error.retryable
    assert "overloaded" in str(error) and "2 retries" in str(error)
    assert len(fake_llm.requests) == 3


async def test_cut_stream_keeps_partial_text(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    text = "This answer will be cut off somewhere in the middle of it."
    fake_llm.set_script([{"text": text, "fault": "cut"}, {"text": "unused"}])
    events, error = await collect_error(build_provider())
    assert isinstance(error, StreamInterrupted)
    streamed = text_of(events)
    assert streamed and text.startswith(streamed) and streamed != text
    assert error.partial_text == streamed
    assert "broke off" in str(error) and "retry" in str(error)
    assert not any(isinstance(e, Stop) for e in events)
    assert sleeps == []  # text had arrived: not retried behind the user's back
    assert len(fake_llm.requests) == 1


async def test_malformed_tool_json_is_delivered_intact(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script(
        [
            {
                "tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "a.py"}}],
                "fault": "malformed_tool_json",
            }
        ]
    )
    events = await collect(build_provider())
    arguments = "".join(e.arguments for e in events if isinstance(e, ToolCallDelta))
    assert arguments == '{"path": "a.py"'  # exactly what was sent; the loop reports the error
    assert [type(e) for e in events if isinstance(e, ToolCallStart | ToolCallEnd)] == [
        ToolCallStart,
        ToolCallEnd,
    ]
    assert events[-1] == Stop("tool_use")


async def test_unknown_events_are_ignored(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "still fine", "fault": "unknown_event"}])
    events = await collect(build_provider())
    assert text_of(events) == "still fine"
    assert events[-1] == Stop("end_turn")


async def test_refused_key_names_the_variable_not_the_key(
    fake_llm: FakeLLM, build_provider: ProviderFactory, api_key: str, sleeps: Sleeps
) -> None:
    fake_llm.api_key = "the-only-good-key"
    fake_llm.set_script([{"text": "unused"}])
    _, error = await collect_error(build_provider())
    assert isinstance(error, ProviderAuthError)
    assert error.status == 401
    assert "$AGENT_TUI_TEST_API_KEY was refused" in str(error)
    assert fake_llm.url in str(error)
    assert sleeps == []  # never retried


async def test_injected_403_is_an_auth_error(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "unused", "fault": {"status": 403}}])
    _, error = await collect_error(build_provider())
    assert isinstance(error, ProviderAuthError) and error.status == 403


async def test_unknown_model_404_names_model_and_url(
    fake_llm: FakeLLM, build_provider: ProviderFactory
) -> None:
    fake_llm.set_script([{"text": "unused", "fault": {"status": 404}}])
    _, error = await collect_error(build_provider())
    assert isinstance(error, ProviderNotFoundError)
    assert "'test-model'" in str(error) and fake_llm.url in str(error)


async def test_wrong_base_url_convention_gets_a_hint(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str]
) -> None:
    # Each API's base URL with the other's convention: /v1 added for Anthropic, missing for OpenAI.
    wrong = fake_llm.openai_url if combo[0] == "anthropic" else fake_llm.url
    _, error = await collect_error(build_provider(base_url=wrong))
    assert isinstance(error, ProviderNotFoundError)
    assert "/v1" in str(error).split(";")[-1]  # the hint names the convention


async def test_bad_request_is_not_retried(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([])  # exhausted script: the fake answers 400
    _, error = await collect_error(build_provider())
    assert type(error) is ProviderError and error.status == 400
    assert "no turn 1" in str(error)
    assert sleeps == []


async def test_unreachable_server_is_retried_then_reported(
    build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    provider = build_provider(base_url=base, max_retries=2)
    _, error = await collect_error(provider)
    assert type(error) is ProviderError
    assert "cannot reach" in str(error) and str(port) in str(error)
    assert len(sleeps) == 2


async def test_missing_key_for_the_official_api_fails_before_any_request(
    fake_llm: FakeLLM,
    build_provider: ProviderFactory,
    monkeypatch: pytest.MonkeyPatch,
    combo: tuple[str, str],
) -> None:
    monkeypatch.delenv("AGENT_TUI_TEST_API_KEY")
    official = (
        "https://api.anthropic.com" if combo[0] == "anthropic" else "https://api.openai.com/v1"
    )
    _, error = await collect_error(build_provider(base_url=official))
    assert isinstance(error, ProviderAuthError)
    assert "$AGENT_TUI_TEST_API_KEY" in str(error)


async def test_no_key_for_a_local_server_is_sent_without_one(
    fake_llm: FakeLLM,
    build_provider: ProviderFactory,
    monkeypatch: pytest.MonkeyPatch,
    combo: tuple[str, str],
) -> None:
    monkeypatch.delenv("AGENT_TUI_TEST_API_KEY")
    fake_llm.api_key = "a-key-the-user-did-not-set"
    fake_llm.set_script([{"text": "unused"}])
    _, error = await collect_error(build_provider())
    assert isinstance(error, ProviderAuthError)
    assert "without a key ($AGENT_TUI_TEST_API_KEY is not set)" in str(error)
    headers = {k.lower() for k in fake_llm.received[0]["headers"]}
    if combo[1] == "httpx":  # the SDKs insist on sending something
        assert not headers & {"x-api-key", "authorization"}


@pytest.mark.parametrize(
    "fault",
    [{"status": 401}, {"status": 404}, {"status": 429, "times": 9}, {"status": 400}, "cut"],
    ids=["401", "404", "429", "400", "cut"],
)
async def test_key_never_appears_in_errors_or_logs(
    fake_llm: FakeLLM,
    build_provider: ProviderFactory,
    api_key: str,
    fault: object,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The fake echoes the key in its error bodies, as some real APIs partly do.
    fake_llm.set_script([{"text": "some partial text here", "fault": fault}])
    caplog.set_level(logging.DEBUG)
    _, error = await collect_error(build_provider(max_retries=1))
    chain: list[BaseException] = []
    node: BaseException | None = error
    while node is not None and node not in chain:
        chain.append(node)
        node = node.__cause__ or node.__context__
    for exc in chain:
        assert api_key not in str(exc) and api_key not in repr(exc.args)
    assert api_key not in caplog.text


async def test_error_event_mid_stream_keeps_partial_text(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    text = "An answer that the server gives up on half way through."
    fake_llm.set_script([{"text": text, "fault": "stream_error"}])
    events, error = await collect_error(build_provider())
    assert isinstance(error, StreamInterrupted)
    assert error.partial_text == text_of(events) and text.startswith(error.partial_text)
    assert "Overloaded" in str(error)
    assert sleeps == []


async def test_error_event_before_any_output_is_retried(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([{"fault": "stream_error"}, {"text": "recovered"}])
    events = await collect(build_provider())
    assert text_of(events) == "recovered"
    assert len(sleeps) == 1 and len(fake_llm.requests) == 2


async def test_connection_lost_after_a_complete_answer_keeps_it(
    fake_llm: FakeLLM, build_provider: ProviderFactory, sleeps: Sleeps
) -> None:
    fake_llm.set_script([{"text": "complete answer", "fault": "cut_at_end"}, {"text": "unused"}])
    events = await collect(build_provider())
    assert text_of(events) == "complete answer"
    assert events[-1] == Stop("end_turn")
    assert sleeps == [] and len(fake_llm.requests) == 1
