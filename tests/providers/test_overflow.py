"""Each server's "prompt too long" answer is recognised with the sizes it states (issue 11.4)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_tui.errors import ContextOverflow
from agent_tui.providers.overflow import Overflow, parse_overflow
from tests.fakes.llm_server import FakeLLM, overflow_error

from .conftest import ProviderFactory, collect_error


@pytest.mark.parametrize(
    ("style", "expected"),
    [
        ("openai", Overflow(4096, 5000)),
        ("anthropic", Overflow(4096, 5000)),
        ("llamacpp", Overflow(4096, 5000)),
        ("vllm", Overflow(4096, 5000)),
    ],
)
def test_each_servers_overflow_shape_gives_its_limit_and_prompt_size(
    style: str, expected: Overflow
) -> None:
    body = overflow_error(style, 4096, 5000, 100 if style != "vllm" else 0)
    assert body is not None
    error = body.get("error", body)
    assert parse_overflow(400, body, str(error["message"])) == expected


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # llama.cpp before exceed_context_size_error: n_ctx only in the text.
        (None, "the request exceeds the available context size (n_ctx: 2048)"),
        # vLLM's newer wording.
        (
            {"error": {"message": "x", "type": "BadRequestError"}},
            "'max_tokens' is too large: 500. This model's maximum context length is 2048 tokens "
            "and your request has 1900 input tokens",
        ),
    ],
)
def test_older_and_newer_wordings_are_recognised(body: Any, message: str) -> None:
    found = parse_overflow(400, body, message)
    assert found is not None and found.limit == 2048


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "model 'gpt-9' does not exist"),
        (400, "tools.0.input_schema: JSON schema is invalid"),
        (400, "messages.1: roles must alternate"),
        (429, "rate limited: maximum context length is 4096 tokens"),  # not a 400
        (500, "prompt is too long: 5000 tokens > 4096 maximum"),
    ],
)
def test_other_errors_are_not_taken_for_an_overflow(status: int, message: str) -> None:
    assert parse_overflow(status, {"error": {"message": message}}, message) is None


@pytest.mark.parametrize("style", ["openai", "anthropic", "llamacpp", "vllm"])
async def test_both_transports_raise_context_overflow_with_the_stated_sizes(
    fake_llm: FakeLLM, build_provider: ProviderFactory, combo: tuple[str, str], style: str
) -> None:
    fake_llm.context_limit, fake_llm.overflow_style = 10, style
    fake_llm.set_script([{"text": "never"}])
    _, error = await collect_error(build_provider())
    assert isinstance(error, ContextOverflow), error
    assert error.limit == 10 and error.prompt_tokens is not None and error.prompt_tokens > 10
    assert len(fake_llm.requests) == 1  # a 400: not retried by the provider
