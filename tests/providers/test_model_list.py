"""The provider's model list for ``/model``'s picker (issue 23 §10), over real HTTP against the
fake server answering in each API's own format."""

from __future__ import annotations

import pytest

from agent_tui.config import ModelConfig
from agent_tui.providers.model_list import list_models
from tests.fakes.llm_server import FakeLLM

KEY_ENV = "AGENT_TUI_TEST_LIST_KEY"


def model(fake: FakeLLM, provider: str) -> ModelConfig:
    url = fake.url if provider == "anthropic" else fake.openai_url
    return ModelConfig(provider, "test-model", url, KEY_ENV)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-list")


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_the_provider_lists_its_models(fake_llm: FakeLLM, provider: str) -> None:
    fake_llm.served_models = ["model-a", "model-b", "model-a"]
    assert await list_models(model(fake_llm, provider)) == ["model-a", "model-b"]
    (asked,) = fake_llm.model_lists
    assert asked.startswith("GET /v1/models")


async def test_ollama_without_v1_models_is_asked_its_tags(fake_llm: FakeLLM) -> None:
    fake_llm.models_flavour = "ollama"
    fake_llm.served_models = ["qwen2.5-coder:1.5b", "llama3.2:3b"]
    assert await list_models(model(fake_llm, "openai")) == ["qwen2.5-coder:1.5b", "llama3.2:3b"]
    assert fake_llm.model_lists == ["GET /v1/models", "GET /api/tags"]


async def test_a_server_without_a_list_gives_none(fake_llm: FakeLLM) -> None:
    fake_llm.models_flavour = None
    assert await list_models(model(fake_llm, "openai")) is None
    assert await list_models(model(fake_llm, "anthropic")) is None


async def test_names_that_are_not_one_plain_word_are_left_out(fake_llm: FakeLLM) -> None:
    fake_llm.served_models = ["good-model", "two words", "bad\x1b[2Jname", "", "x" * 300]
    assert await list_models(model(fake_llm, "openai")) == ["good-model"]
