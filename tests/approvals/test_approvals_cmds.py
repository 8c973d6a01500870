"""/reset-confirmations, /approvals and /trust through the command registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.actions import OpenApprovals, Trust
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.approvals.trust import is_trusted
from agent_tui.approvals.types import Scope
from agent_tui.commands.approvals_cmds import register_approval_commands
from agent_tui.commands.registry import CommandRegistry
from agent_tui.mcp.manager import McpManager
from tests.approvals.conftest import EngineFactory


@dataclass
class _Deps:
    approvals: ApprovalEngine
    workspace: Path
    mcp: McpManager | None = None


@dataclass
class _Agent:
    deps: _Deps


@dataclass
class _Context:
    """What the TUI or headless runner hands a command: the agent and whether it is interactive."""

    agent: Any
    interactive: bool = False


@pytest.fixture
def registry() -> CommandRegistry:
    registry = CommandRegistry()
    register_approval_commands(registry)
    return registry


@pytest.fixture
def ctx(make_engine: EngineFactory, workspace: Path) -> _Context:
    return _Context(_Agent(_Deps(make_engine(), workspace)))


async def _run(registry: CommandRegistry, ctx: _Context, name: str, args: str = "") -> Any:
    command = registry.get(name)
    assert command is not None
    return await command.handler(ctx, args)


def test_registered(registry: CommandRegistry) -> None:
    assert [c.name for c in registry.all()] == ["approvals", "reset-confirmations", "trust"]
    assert all(c.description and c.source == "built-in" for c in registry.all())


async def test_approvals_lists_and_revokes(registry: CommandRegistry, ctx: _Context) -> None:
    engine = ctx.agent.deps.approvals
    engine.grants.add(Scope.SESSION, "create_file")
    kept = engine.grants.add(Scope.WORKSPACE, "run_in_terminal", "make|x")
    listed = await _run(registry, ctx, "approvals")
    assert "| 1 |" in listed.message and "session" in listed.message
    assert "make\\|x" in listed.message  # a pipe in a pattern does not break the table
    assert listed.action is None and len(listed.data["grants"]) == 2
    revoked = await _run(registry, ctx, "approvals", "revoke 1")
    assert "Revoked create_file" in revoked.message
    assert engine.grants.grants() == [kept]
    assert "No approval `9`" in (await _run(registry, ctx, "approvals", "revoke 9")).message
    assert "Usage" in (await _run(registry, ctx, "approvals", "revoke")).message
    ctx.interactive = True
    assert (await _run(registry, ctx, "approvals")).action == OpenApprovals()


async def test_reset_confirmations(registry: CommandRegistry, ctx: _Context) -> None:
    engine = ctx.agent.deps.approvals
    engine.grants.add(Scope.SESSION, "create_file")
    engine.grants.add(Scope.ALWAYS, "fetch_webpage")
    result = await _run(registry, ctx, "reset-confirmations", "session")
    assert result.message.startswith("Cleared 1 session approval (create_file)")
    assert [g.tool for g in engine.grants.grants()] == ["fetch_webpage"]
    assert "Unknown scope" in (await _run(registry, ctx, "reset-confirmations", "x")).message
    await _run(registry, ctx, "reset-confirmations")  # default: all
    assert engine.grants.grants() == []


@pytest.mark.parametrize(
    ("scope", "cleared"), [("session", True), ("all", True), ("always", False)]
)
async def test_reset_of_the_session_forgets_sampling_refusals(
    registry: CommandRegistry, ctx: _Context, workspace: Path, scope: str, cleared: bool
) -> None:
    manager = McpManager({}, tools=None, workspace=workspace)
    manager.hooks.sampling_denied.add("everything")
    ctx.agent.deps.mcp = manager
    result = await _run(registry, ctx, "reset-confirmations", scope)
    assert manager.hooks.sampling_denied == (set() if cleared else {"everything"})
    assert ("will be asked again: everything." in result.message) is cleared
    assert result.data["sampling_refusals_cleared"] == (["everything"] if cleared else [])


async def test_trust(registry: CommandRegistry, ctx: _Context, state: Path) -> None:
    workspace = ctx.agent.deps.workspace
    status = await _run(registry, ctx, "trust")
    assert "never asked" in status.message
    on = await _run(registry, ctx, "trust", "on")
    assert on.action == Trust(True, str(workspace))
    assert is_trusted(workspace, state)
    off = await _run(registry, ctx, "trust", "off")
    assert off.action == Trust(False, str(workspace)) and not is_trusted(workspace, state)
    assert "Usage" in (await _run(registry, ctx, "trust", "maybe")).message
