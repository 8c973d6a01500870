"""Wiring for the app (TUI and headless): one call to give a session its MCP servers.

This module sits in the assembly layer (ARCHITECTURE.md: Layers), above the built-in commands it
registers; the rest of ``mcp/`` sits below the agent.

```python
manager = create_mcp(config, agent.deps.tools, agent.deps.commands,
                     on_elicit=..., ask_sampling=...,       # TUI only; headless leaves them None
                     complete=complete_with(provider, config.model.name))
if manager is not None:                  # None: nothing configured, nothing imported
    manager.start_all()                  # inside the running event loop; returns at once
    await manager.wait_started(timeout)  # headless: before the first turn (the model sees the tools)
    ...
    await manager.aclose()               # on exit: stdio servers' processes end
```
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.approvals.grants import GrantStore
    from agent_tui.commands.registry import CommandRegistry
    from agent_tui.config import Config
    from agent_tui.mcp.manager import McpManager
    from agent_tui.mcp.types import CompleteFn, ElicitHook, SamplingConsentHook
    from agent_tui.tools.registry import ToolRegistry

# Kept in step with mcp.config.WORKSPACE_FILES (not imported: this check must cost nothing).
_WORKSPACE_FILES = (".vscode/mcp.json", ".mcp.json")


def mcp_configured(config: Config) -> bool:
    """Whether the session has anything MCP to do: a server, or a workspace file to report."""
    if config.section("mcp", "servers"):
        return True
    return any((config.workspace / name).is_file() for name in _WORKSPACE_FILES)


def create_mcp(
    config: Config,
    tools: ToolRegistry,
    commands: CommandRegistry,
    *,
    on_elicit: ElicitHook | None = None,
    ask_sampling: SamplingConsentHook | None = None,
    complete: CompleteFn | None = None,
    model_name: str = "",
    grants: GrantStore | None = None,
) -> McpManager | None:
    """The session's McpManager with ``/mcp`` and the prompt commands registered (not started).

    Returns None, after registering a ``/mcp`` that says so, when nothing is configured: a session
    without servers then imports none of the MCP modules (and never the SDK).

    Args:
        on_elicit: the TUI's form for a server's elicitation (None: decline).
        ask_sampling: the TUI's question before a server's first sampling request (None: decline).
        complete: the configured model for allowed sampling requests (see ``mcp.sampling.complete_with``).
        model_name: reported to servers as the model that answered a sampling request.
        grants: the approval engine's grant store, where lasting sampling allows are kept.

    Raises:
        ConfigError: a workspace MCP file or server entry is malformed.
    """
    from agent_tui.commands.mcp_cmds import register_mcp_commands

    if not mcp_configured(config):
        register_mcp_commands(commands, None)
        return None
    from agent_tui.mcp.manager import McpManager
    from agent_tui.mcp.types import McpHooks

    hooks = McpHooks(
        on_elicit=on_elicit,
        ask_sampling=ask_sampling,
        complete=complete,
        model_name=model_name or config.model.name,
        grants=grants,
    )
    manager = McpManager.from_config(config, tools, hooks)
    register_mcp_commands(commands, manager)
    return manager
