"""Assemble an Agent from a Config: provider, tools, approvals, registries (used by TUI and headless)."""

from __future__ import annotations

import dataclasses
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
    from agent_tui.agent.references import builtin_reference_registry, mcp_reference_kind
    from agent_tui.agent.registries import default_registries
    from agent_tui.mcp.session import complete_with, create_mcp
    from agent_tui.providers import make_provider

    tools = builtin_registry()
    tools.disabled.update(config.raw.get("tools", {}).get("disabled", []))
    commands, participants = default_registries(config)
    model = config.model
    if model.script and not Path(model.script).is_absolute():
        # A script named in a workspace .agentrc is relative to the workspace, not the cwd.
        model = dataclasses.replace(model, script=str(config.workspace / model.script))
    provider = make_provider(model, record=record)
    references = builtin_reference_registry()
    # Hooks for elicitation and sampling consent are set by the TUI; headless declines both.
    mcp = create_mcp(config, tools, commands, complete=complete_with(provider, config.model.name))
    if mcp is not None:
        references.register(mcp_reference_kind(mcp))
    deps = AgentDeps(
        config=config,
        provider=provider,
        tools=tools,
        approvals=ApprovalEngine(config, config.workspace, allow_tools=allow_tools, yolo=yolo),
        workspace=config.workspace,
        session=SessionState(cwd=config.workspace),
        commands=commands,
        participants=participants,
        references=references,
        mcp=mcp,
    )
    # One set: what the tool picker disables is neither offered nor approved.
    tools.disabled |= deps.approvals.disabled
    deps.approvals.disabled = tools.disabled
    return Agent(deps)
