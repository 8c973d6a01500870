"""Shared fixtures. Helpers append their own fixtures here with small edits."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.llm_server import FakeLLM


@pytest.fixture
def fake_llm() -> Iterator[FakeLLM]:
    """A fake LLM server on 127.0.0.1 (both APIs); script it with ``fake_llm.set_script(turns)``.

    ``.url`` is the Anthropic-style base URL (no ``/v1``), ``.openai_url`` the OpenAI-style one,
    ``.requests`` the JSON bodies received.
    """
    with FakeLLM() as server:
        yield server
