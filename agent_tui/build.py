"""Assemble an Agent from a Config: provider, tools, approvals, registries (used by TUI and headless)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent_tui.agent.loop import Agent, AgentDeps
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.config import Config
from agent_tui.tools.base import SessionState
from agent_tui.tools.registry import builtin_registry


def build_agent(
    config: Config,
    *,
    allow_tools: Iterable[str] = (),
    yolo: bool = False,
    record: Path | None = None,
) -> Agent:
    """Build a ready Agent. Nothing here talks to the network or imports an SDK."""
    from agent_tui.agent.registries import default_registries
    from agent_tui.providers import make_provider

    tools = builtin_registry()
    tools.disabled.update(config.raw.get("tools", {}).get("disabled", []))
    commands, participants = default_registries(config)
    deps = AgentDeps(
        config=config,
        provider=make_provider(config.model, record=record),
        tools=tools,
        approvals=ApprovalEngine(config, config.workspace, allow_tools=allow_tools, yolo=yolo),
        workspace=config.workspace,
        session=SessionState(cwd=config.workspace),
        commands=commands,
        participants=participants,
    )
    return Agent(deps)
