"""``/mcp`` and ``/mcp.<server>.<prompt>`` through the CommandRegistry, against real servers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.commands.mcp_cmds import complete_prompt_argument, register_mcp_commands
from agent_tui.commands.registry import CommandRegistry, CommandResult
from agent_tui.errors import UsageError
from agent_tui.mcp.prompts import MissingPromptArguments
from tests.mcp.conftest import MakeManager


@dataclass
class Ctx:
    agent: Any = None
    interactive: bool = False


async def run(commands: CommandRegistry, name: str, text: str = "") -> CommandResult:
    command = commands.get(name)
    assert command is not None, f"/{name} is not registered"
    return await command.handler(Ctx(), text)


async def test_mcp_prompt_commands_follow_the_server(
    make_manager: MakeManager, everything_js: Path
) -> None:
    manager, _ = await make_manager(
        {"everything": {"command": "node", "args": [str(everything_js)]}}
    )
    commands = CommandRegistry()
    register_mcp_commands(commands, manager)
    names = [c.name for c in commands.all() if c.source == "mcp:everything"]
    assert "mcp.everything.args-prompt" in names and "mcp.everything.simple-prompt" in names
    args_cmd = commands.get("mcp.everything.args-prompt")
    assert args_cmd is not None and args_cmd.args_hint == "city=… [state=…]"

    result = await run(commands, "mcp.everything.args-prompt", "city=Lisbon")
    assert result.prompt is not None and "Lisbon" in result.prompt
    positional = await run(commands, "mcp.everything.args-prompt", "Porto Norte")
    assert (
        positional.prompt is not None
        and "Porto" in positional.prompt
        and "Norte" in positional.prompt
    )
    with pytest.raises(MissingPromptArguments, match="`city` \\(Name of the city\\)"):
        await run(commands, "mcp.everything.args-prompt", "state=X")

    assert await complete_prompt_argument(
        manager, "/mcp.everything.completable-prompt", "department", "Mar"
    ) == ["Marketing"]

    await run(commands, "mcp", "stop everything")
    assert commands.get("mcp.everything.args-prompt") is None  # withdrawn with the server
    await run(commands, "mcp", "start everything")
    assert commands.get("mcp.everything.args-prompt") is not None


async def test_mcp_list_restart_logs_resources(
    make_manager: MakeManager, everything_js: Path, time_server: dict[str, Any]
) -> None:
    manager, _ = await make_manager(
        {
            "everything": {"command": "node", "args": [str(everything_js)]},
            "time": time_server,
            "broken": {"command": "agent-tui-no-such-server-binary"},
        }
    )
    commands = CommandRegistry()
    register_mcp_commands(commands, manager)

    listing = (await run(commands, "mcp")).message
    state = manager.servers["everything"]
    assert f"| everything | running | {len(state.tools)} | 4 | " in listing
    assert "| time | running | 2 | 0 | 0 | stdio |" in listing
    assert "| broken | failed | 0 |" in listing and "**broken**:" in listing

    restarted = (await run(commands, "mcp", "restart time")).message
    assert "**time** is running, 2 tools" in restarted

    logs = (await run(commands, "mcp", "logs time")).message
    assert "starting " in logs and "connected: 2 tools" in logs

    resources = (await run(commands, "mcp", "resources")).message
    assert "#mcp:everything/demo://resource/static/document/features.md" in resources

    for bad in ("logs", "restart nope", "frobnicate x"):
        with pytest.raises(UsageError):
            await run(commands, "mcp", bad)


async def test_mcp_with_no_servers(make_manager: MakeManager) -> None:
    manager, _ = await make_manager({})
    commands = CommandRegistry()
    register_mcp_commands(commands, manager)
    assert "No MCP servers configured" in (await run(commands, "mcp")).message
    assert "No MCP resources" in (await run(commands, "mcp", "resources")).message


async def test_mcp_when_nothing_is_configured(workspace: Path, tmp_path: Path) -> None:
    from agent_tui.config import load_config
    from agent_tui.mcp.session import create_mcp
    from agent_tui.tools.registry import ToolRegistry

    config = load_config(workspace, env={}, user_file=tmp_path / "none")
    commands = CommandRegistry()
    assert create_mcp(config, ToolRegistry(), commands) is None
    assert "No MCP servers configured" in (await run(commands, "mcp")).message
    assert "No MCP servers configured" in (await run(commands, "mcp", "resources")).message
    with pytest.raises(UsageError, match="no MCP servers are configured"):
        await run(commands, "mcp", "restart x")
