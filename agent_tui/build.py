"""Assemble an Agent from a Config: provider, tools, approvals, registries (used by TUI and headless)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from agent_tui.agent.loop import Agent, AgentDeps
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.checkpoints import Checkpoints, Limits
from agent_tui.config import Config
from agent_tui.tools.base import Manifest, SessionState, Tool
from agent_tui.tools.registry import ToolRegistry, builtin_registry, set_offered


def build_agent(
    config: Config,
    *,
    allow_tools: Iterable[str] = (),
    yolo: bool = False,
    record: Path | None = None,
    add_dirs: Iterable[Path] = (),
) -> Agent:
    """Build a ready Agent. Nothing here talks to the network or imports an SDK.

    ``add_dirs`` are the extra roots (``--add-dir``), already checked
    (``sandbox.extra_roots.check_extra_root``) and resolved.
    """
    from agent_tui.agent.references import builtin_reference_registry
    from agent_tui.providers import make_provider
    from agent_tui.registries import default_registries

    tools = builtin_registry()
    offer_optional_tools(tools, config)
    tools.disabled.update(config.raw.get("tools", {}).get("disabled", []))
    commands, participants = default_registries(config)
    provider = make_provider(config.model, record=record)
    references = builtin_reference_registry()
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
    )
    from agent_tui.subagents.setup import install_agents

    # One list of extra roots: the tools (ToolContext.resolve), the approval engine (linked in
    # AgentDeps) and the sandbox (make_sandbox) read it, and /add-dir appends to it.
    deps.session.extra_roots.extend(add_dirs)
    install_agents(config.workspace, tools, participants, deps.session)
    deps.sandbox = make_sandbox(config, deps.approvals)
    limits = Limits.from_config(config)
    if limits.enabled:
        deps.checkpoints = Checkpoints(config.workspace, limits)
    _share_disabled(deps)
    _attach_mcp(deps, config, config.model.name)
    _attach_lsp(deps, config)
    return Agent(deps)


def offer_optional_tools(tools: ToolRegistry, config: Config) -> None:
    """The built-ins only a config turns on: ``web_search`` when ``[web] search`` names a search
    engine (its key variable then kept from child processes like the model's)."""
    from agent_tui import key_env
    from agent_tui.tools.web_search_backends import backend_from_config

    backend = backend_from_config(config)
    set_offered(tools, "web_search", backend is not None)
    if backend is not None and backend.key_env:
        key_env.hide([backend.key_env])


def make_sandbox(config: Config, approvals: ApprovalEngine) -> Any:
    """The session's sandbox from ``[sandbox]`` / ``--sandbox``; the approval engine and the
    app's own git use the same one."""
    from agent_tui.sandbox.policy import build_policy
    from agent_tui.sandbox.runtime import NETWORK_GRANT, Sandbox, set_current

    def granted_domains() -> list[str]:
        grants = approvals.grants.for_tool(NETWORK_GRANT)
        return [g.pattern for g in grants if g.pattern]

    policy = build_policy(config, config.workspace, add_dirs=approvals.extra_roots)
    sandbox = Sandbox(policy, granted_domains)
    approvals.sandbox = sandbox
    set_current(sandbox)
    return sandbox


def _share_disabled(deps: AgentDeps) -> None:
    """One set: what the tool picker disables is neither offered nor approved."""
    deps.tools.disabled |= deps.approvals.disabled
    deps.approvals.disabled = deps.tools.disabled


def _attach_mcp(deps: AgentDeps, config: Config, model_name: str) -> Any:
    """Create the MCP manager (not started) and its ``#mcp:`` references; None if unconfigured.

    Hooks for elicitation and sampling consent are set by the TUI; headless declines both.
    """
    from agent_tui.agent.references import mcp_reference_kind
    from agent_tui.mcp.sampling import complete_with
    from agent_tui.mcp.session import create_mcp

    complete = complete_with(deps.provider, model_name)
    manager = create_mcp(
        config, deps.tools, deps.commands, complete=complete, grants=deps.approvals.grants
    )
    if manager is not None:
        deps.references.register(mcp_reference_kind(manager))
        deps.mcp = manager
    return manager


def _rebuilt_engine(config: Config, engine: ApprovalEngine) -> ApprovalEngine:
    """An approval engine for the reloaded ``config`` that keeps the session's own state."""
    approvals = ApprovalEngine(
        config, config.workspace, allow_tools=engine.allow_tools, yolo=engine.yolo
    )
    approvals.grants = engine.grants  # the same store: session grants survive
    approvals.modes = engine.modes  # and the mode
    approvals.extra_roots = engine.extra_roots  # and the extra roots (the session's list)
    return approvals


def _attach_lsp(deps: AgentDeps, config: Config) -> None:
    """The language servers for diagnostics after edits (none started yet) and the
    ``diagnostics`` tool; neither when no server is configured or found on PATH."""
    from agent_tui.lsp.config import lsp_settings

    settings = lsp_settings(config.raw)
    deps.tools.unregister("diagnostics")
    if not settings.servers:
        deps.lsp = None
        return
    from agent_tui.lsp.manager import LspManager
    from agent_tui.resources import data_dir
    from agent_tui.tools.registry import load_manifest

    manager = LspManager(settings, config.workspace)
    deps.lsp = manager

    def diagnostics_tool(manifest: Manifest) -> Tool:
        from agent_tui.lsp.tool import DiagnosticsTool

        return DiagnosticsTool(manifest, manager)

    deps.tools.register(load_manifest(data_dir("tools") / "diagnostics.json"), diagnostics_tool)


async def _apply_lsp(deps: AgentDeps, config: Config) -> None:
    """Servers a trusted folder's ``[lsp]`` adds or changes: the old ones stop, new ones start
    on the next edit."""
    from agent_tui.lsp.config import lsp_settings

    old = deps.lsp
    if old is not None and old.settings == lsp_settings(config.raw):
        return
    if old is not None:
        await old.aclose()
    _attach_lsp(deps, config)


async def apply_trust(agent: Agent, trusted: bool) -> list[str]:
    """Apply a change of the workspace's trust to a running agent, without a restart.

    Reloads the config with ``trusted`` (same CLI layer), rebuilds the approval engine from it
    (keeping this session's grants and the tool picker's choices), and brings the MCP servers in
    step: servers the folder's files now add are started, servers they may no longer run stopped.
    The model follows the folder's endpoint settings only while the agent runs the model its
    config gave (not the demo model, nor one picked with /model).

    Args:
        agent: the running Agent.
        trusted: the folder's new trust.

    Returns:
        Notes for the user on what changed.

    Raises:
        ConfigError: the reloaded config (or a workspace MCP file) is invalid; nothing is changed.
        AgentError: the new model's provider cannot be created; nothing is changed.
    """
    from agent_tui.config import endpoint_notice, load_config
    from agent_tui.config_gate import format_keys
    from agent_tui.providers import make_provider

    deps = agent.deps
    old = deps.config
    config = load_config(old.workspace, cli=old.cli, trusted=trusted)
    configured = load_config(old.workspace, cli=old.cli, trusted=old.trusted).model
    switch = agent.model == old.model == configured and config.model != configured
    provider = make_provider(config.model) if switch else None
    if not switch:
        config = dataclasses.replace(config, model=old.model)
    approvals = _rebuilt_engine(config, deps.approvals)
    notes = await _apply_mcp(agent, config)
    await _apply_lsp(deps, config)
    deps.config, deps.approvals = config, approvals
    offer_optional_tools(deps.tools, config)  # a trusted folder's [web] applies now
    deps.sandbox = make_sandbox(config, approvals)  # the folder's [sandbox] applies once trusted
    _share_disabled(deps)
    if provider is not None:
        await agent.set_model(config.model, provider)
        where = endpoint_notice(config) or "the provider's own API"
        notes.insert(0, f"Model: {config.model.provider} {config.model.name}, {where}.")
    if trusted and old.ignored_untrusted:
        notes.insert(0, f"Applied this folder's {format_keys(old.ignored_untrusted)} settings.")
    return notes


async def _apply_mcp(agent: Agent, config: Config) -> list[str]:
    """Start the MCP servers ``config`` adds and stop those it drops; returns notes."""
    from agent_tui.mcp.session import mcp_configured

    deps = agent.deps
    if deps.mcp is None:
        if not mcp_configured(config):
            return []
        manager = _attach_mcp(deps, config, agent.model.name)
        if manager is None:
            return []
        manager.start_all()
        return [f"Starting MCP server {name}." for name in manager.servers]
    from agent_tui.mcp.manager import McpManager

    manager = deps.mcp
    wanted = McpManager.from_config(config, None, manager.hooks)
    notes = []
    for name in [n for n in manager.servers if n not in wanted.servers]:
        await manager.stop(name)
        del manager.servers[name]
        notes.append(f"Stopped MCP server {name}.")
    added = [n for n in wanted.servers if n not in manager.servers]
    for name in added:
        manager.servers[name] = wanted.servers[name]
        notes.append(f"Starting MCP server {name}.")
    manager.notices = wanted.notices
    for name in added:
        manager.launch(name)  # only the new ones: a server stopped with /mcp stop stays stopped
    return notes
