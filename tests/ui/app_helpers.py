"""Starting the app under Pilot, and the steps many UI tests take in it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.agent.loop import Agent
from agent_tui.config import Config, load_config
from agent_tui.mcp.sampling import complete_with
from agent_tui.mcp.session import create_mcp
from agent_tui.ui.app import AgentApp
from tests.fakes.llm_server import FakeLLM
from tests.ui.conftest import Harness
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until

SIZE = (100, 32)


def fake_anthropic_config(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fake: FakeLLM,
    workspace: Path,
    *,
    name: str = "claude-x",
) -> Config:
    """The config of ``workspace`` with the model ``name`` on the fake server (Anthropic API).

    HOME and the state dir move into ``tmp_path``; the key is a dummy (the server takes any).
    """
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    layer = {"model": {"provider": "anthropic", "name": name, "base_url": fake.url}}
    env = {"ANTHROPIC_API_KEY": "k"}
    return load_config(workspace, cli=layer, env=env, user_file=tmp_path / "no-rc")


@asynccontextmanager
async def running_app(
    agent: Agent, *, size: tuple[int, int] = SIZE, **options: Any
) -> AsyncIterator[tuple[AgentApp, Pilot[object]]]:
    """Run an ``AgentApp`` on ``agent`` under Pilot in a ``size`` terminal.

    Args:
        agent: the agent the app drives (``make_agent(...).agent`` or a built one).
        size: columns and rows of the test terminal.
        **options: keyword arguments for ``AgentApp`` (``workspace_label``, ``session``…).

    Yields:
        The app and its pilot; the app is still there to inspect after the block.
    """
    app = AgentApp(agent, **options)
    async with app.run_test(size=size) as pilot:
        yield app, pilot


async def send_turns(pilot: Pilot[object], *prompts: str) -> None:
    """Send each of ``prompts`` in turn, waiting for its turn to finish before the next."""
    for prompt in prompts:
        await send(pilot, prompt)
        await wait_idle(pilot)


async def send_to_approval(pilot: Pilot[object], text: str, *keys: str) -> None:
    """Send ``text``, wait for the approval dialog it leads to, and press ``keys`` in it."""
    await send(pilot, text)
    await wait_screen(pilot, "ApprovalScreen")
    if keys:
        await pilot.press(*keys)


async def send_clear(pilot: Pilot[object], key: str, command: str = "/clear") -> None:
    """Send ``command`` (``/clear`` or ``/new``), answer its question with ``key`` and wait."""
    await send(pilot, command)
    await wait_screen(pilot, "ConfirmClearScreen")
    await pilot.press(key)
    await wait_idle(pilot)


async def deny_with_reason(pilot: Pilot[object], reason: str) -> None:
    """In the open approval dialog: deny, type ``reason`` and send it."""
    await pilot.press("n")
    await pilot.press(*reason)
    await pilot.press("enter")


def attach_mcp(h: Harness, made: list[Harness]) -> Harness:
    """Give ``h``'s agent a real McpManager for the servers in its config.

    Sampling requests are answered by ``h``'s scripted model. ``made`` is the ``mcp_harnesses``
    fixture, which stops the servers after the test.
    """
    deps = h.agent.deps
    deps.mcp = create_mcp(
        deps.config,
        deps.tools,
        deps.commands,
        complete=complete_with(h.provider, "scripted"),
        grants=deps.approvals.grants,
    )
    assert deps.mcp is not None
    made.append(h)
    return h


async def call_server_tool(
    pilot: Pilot[object], h: Harness, tool: str, text: str, screen: str
) -> None:
    """Wait for the MCP ``tool`` to be listed, send ``text``, allow the call and wait for ``screen``.

    The scripted model's first turn must call ``tool``; ``screen`` is the question the server's
    request back to the client opens (an elicitation form, a sampling consent…).
    """
    await wait_until(pilot, lambda: tool in h.agent.deps.tools, f"the tool {tool}")
    await send_to_approval(pilot, text, "y")
    await wait_screen(pilot, screen)
