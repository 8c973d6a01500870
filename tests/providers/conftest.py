"""Fixtures for the provider tests: a key in the environment, a recorded sleep, provider builders."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import pytest

from agent_tui.config import ModelConfig
from agent_tui.conversation import user_text
from agent_tui.errors import ProviderError
from agent_tui.providers.anthropic import AnthropicProvider
from agent_tui.providers.api import ApiProvider
from agent_tui.providers.base import ProviderEvent, ProviderRequest, ToolSpec
from agent_tui.providers.openai import OpenAIProvider
from agent_tui.providers.responses import ResponsesProvider
from agent_tui.providers.retry import RetryPolicy
from tests.fakes.llm_server import FakeLLM

KEY_ENV = "AGENT_TUI_TEST_API_KEY"
COMBOS = [
    ("anthropic", "httpx"),
    ("anthropic", "sdk"),
    ("openai", "httpx"),
    ("openai", "sdk"),
    ("responses", "httpx"),  # the openai provider with wire_api = "responses"
    ("responses", "sdk"),
]
# For request features only the Messages API has (thinking): ``@anthropic_only`` on a test that
# takes ``combo`` runs it over both Anthropic transports instead of all four combos.
anthropic_only = pytest.mark.parametrize(
    "combo", [c for c in COMBOS if c[0] == "anthropic"], indirect=True, ids=lambda c: "-".join(c)
)
openai_only = pytest.mark.parametrize(
    "combo", [c for c in COMBOS if c[0] == "openai"], indirect=True, ids=lambda c: "-".join(c)
)


class Sleeps(list[float]):
    """Records the retry waits instead of waiting (RetryPolicy.sleep)."""

    async def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def api_key(monkeypatch: pytest.MonkeyPatch) -> str:
    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv(KEY_ENV, key)
    return key


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture(params=COMBOS, ids=[f"{api}-{transport}" for api, transport in COMBOS])
def combo(request: pytest.FixtureRequest) -> tuple[str, str]:
    return request.param  # type: ignore[no-any-return]


ProviderFactory = Callable[..., ApiProvider]


@pytest.fixture
def build_provider(
    fake_llm: FakeLLM, combo: tuple[str, str], sleeps: Sleeps, api_key: str
) -> ProviderFactory:
    """Build the provider for this combo, pointed at the fake server, retries recorded."""
    api, transport = combo

    def build(*, base_url: str | None = None, max_retries: int = 3, **config: Any) -> ApiProvider:
        url = fake_llm.url if api == "anthropic" else fake_llm.openai_url
        if api == "responses":
            config.setdefault("wire_api", "responses")
        model = ModelConfig(
            provider="anthropic" if api == "anthropic" else "openai",
            name="test-model",
            base_url=base_url or url,
            api_key_env=KEY_ENV,
            transport=transport,
            timeout_s=20,
            **config,
        )
        classes = {"anthropic": AnthropicProvider, "openai": OpenAIProvider}
        cls = classes.get(api, ResponsesProvider)
        return cls(model, retry=RetryPolicy(max_retries=max_retries, sleep=sleeps))

    return build


def simple_request(text: str = "hi", **kwargs: Any) -> ProviderRequest:
    tools = [ToolSpec("read_file", "Read a file.", {"type": "object", "properties": {}})]
    return ProviderRequest(
        model="test-model", system="Be brief.", messages=[user_text(text)], tools=tools, **kwargs
    )


async def collect(
    provider: ApiProvider | Any, request: ProviderRequest | None = None
) -> list[ProviderEvent]:
    try:
        return [event async for event in provider.stream(request or simple_request())]
    finally:
        await provider.aclose()


async def collect_error(
    provider: ApiProvider | Any, request: ProviderRequest | None = None
) -> tuple[list[ProviderEvent], ProviderError]:
    """The events yielded before the stream raised, and the error (fails if none was raised)."""
    events: list[ProviderEvent] = []
    try:
        async for event in provider.stream(request or simple_request()):
            events.append(event)
    except ProviderError as exc:
        return events, exc
    finally:
        await provider.aclose()
    raise AssertionError(f"the stream ended without an error: {events}")
