"""An Agent wired to the fake LLM server over a real API (HTTP, SSE), for conversation tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.loop import Agent
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.tools.base import BaseTool, Manifest, Prepared, ToolContext, ToolResult
from tests.fakes.llm_server import FakeLLM

FAKE_KEY_ENV = "AGENT_TUI_TEST_FAKE_KEY"


class WaitForeverTool(BaseTool):
    """A read tool that runs until cancelled: a place to press Esc "during a tool"."""

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared("Waiting", "Waited")


WAIT_MANIFEST = Manifest(
    "wait_forever",
    "Wait",
    "wait_forever",
    "",
    "waits until cancelled",
    {"type": "object", "properties": {}},
    "read",
)


def fake_agent_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new workspace for ``fake_agent``: the fake key set, HOME and the state dir in tmp_path."""
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


def fake_agent(workspace: Path, fake: FakeLLM, api: str, **model: Any) -> Agent:
    """An Agent talking ``api`` ("anthropic" | "openai") to ``fake``, without retries.

    The caller sets ``FAKE_KEY_ENV`` in the environment (the fake server wants some key).
    """
    url = fake.url if api == "anthropic" else fake.openai_url
    settings = {
        "provider": api,
        "base_url": url,
        "name": "fake-model",
        "api_key_env": FAKE_KEY_ENV,
        "max_retries": 0,
        **model,
    }
    config = load_config(
        workspace, cli={"model": settings}, env={}, user_file=workspace / "no-user-rc"
    )
    agent = build_agent(config)
    agent.deps.tools.register(WAIT_MANIFEST, WaitForeverTool)
    return agent
