"""``/mcp`` (servers: list, start, stop, restart, logs, resources) and ``/mcp.<server>.<prompt>``.

Prompt commands follow the servers: registered when a server's prompt list arrives, replaced when it
changes, withdrawn when the server stops or fails.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from agent_tui.actions import EditMcp
from agent_tui.commands.registry import (
    CommandContext,
    CommandRegistry,
    CommandResult,
    Handler,
    SlashCommand,
)
from agent_tui.errors import McpError, UsageError
from agent_tui.plural import plural
from agent_tui.text_safety import visible

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager, ServerState
    from agent_tui.mcp.types import PromptInfo

LOG_TAIL_LINES = 60
USAGE = (
    "/mcp [list | start NAME | stop NAME | restart NAME | logs NAME | login NAME | logout NAME"
    " | resources | add NAME -- CMD ARGS… | add NAME --url URL | add-json NAME JSON"
    " | remove NAME]"
)


def servers_markdown(manager: McpManager | None) -> str:
    if manager is None or not manager.servers:
        return "No MCP servers configured (add `[mcp.servers.NAME]` to ~/.agentrc)."
    rows = [
        "| server | status | tools | prompts | resources | transport |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    problems = []
    for name, state in sorted(manager.servers.items()):
        resources = len(state.resources) + len(state.templates)
        rows.append(
            f"| {name} | {state.status} | {len(state.tools)} | {len(state.prompts)} | "
            f"{resources} | {state.config.type} |"
        )
        if state.error:
            problems.append(f"- **{name}**: {state.error} (`/mcp logs {name}`)")
    notes = [*problems, *(f"- {notice}" for notice in manager.notices)]
    return "\n".join(rows + ([""] + notes if notes else []))


def log_tail(state: ServerState, lines: int = LOG_TAIL_LINES) -> str:
    try:
        text = state.log_path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return f"No log yet for {state.name} ({state.log_path})."
    tail = "\n".join(text.splitlines()[-lines:])
    return f"`{state.log_path}` (last {lines} lines)\n\n```text\n{tail}\n```"


def _prompt_handler(manager: McpManager, server: str, prompt: PromptInfo) -> Handler:
    from agent_tui.mcp.prompts import command_name, parse_arguments, render_prompt

    name = command_name(server, prompt.name)

    async def run(ctx: CommandContext, text: str) -> CommandResult:
        arguments = parse_arguments(prompt, text, command=name)
        result = await manager.get_prompt(server, prompt.name, arguments)
        return CommandResult(prompt=render_prompt(result))

    return run


def find_prompt(manager: McpManager, name: str) -> tuple[str, PromptInfo] | None:
    """The server and prompt behind a command name ``mcp.<server>.<prompt>``, if any."""
    from agent_tui.mcp.prompts import command_name

    for server, state in manager.servers.items():
        for prompt in state.prompts:
            if command_name(server, prompt.name) == name:
                return server, prompt
    return None


async def complete_prompt_argument(
    manager: McpManager,
    command: str,
    argument: str,
    value: str,
    context: dict[str, str] | None = None,
) -> list[str]:
    """Suggestions for one argument of ``/mcp.<server>.<prompt>`` (the TUI's completer calls this).

    Returns [] when the server offers no completions.
    """
    found = find_prompt(manager, command.removeprefix("/"))
    if found is None:
        return []
    server, prompt = found
    return await manager.complete(server, "prompt", prompt.name, argument, value, context)


def sync_prompt_commands(commands: CommandRegistry, manager: McpManager, server: str) -> None:
    """Make the registry's ``/mcp.<server>.*`` commands match the server's current prompts."""
    from agent_tui.mcp.prompts import args_hint, command_name
    from agent_tui.mcp.tools import source_of

    commands.unregister_source(source_of(server))
    state = manager.servers.get(server)
    if state is None or state.status != "running":
        return
    for prompt in state.prompts:
        commands.register(
            SlashCommand(
                name=command_name(server, prompt.name),
                description=prompt.description or prompt.title or f"MCP prompt from {server}",
                handler=_prompt_handler(manager, server, prompt),
                args_hint=args_hint(prompt),
                source=source_of(server),
            )
        )


async def _sign_in_or_out(manager: McpManager, action: str, name: str) -> CommandResult:
    """``/mcp login NAME`` (browser + loopback redirect, in the background) and ``/mcp logout``."""
    import asyncio

    login = await asyncio.to_thread(importlib.import_module, "agent_tui.mcp.login")  # the SDK
    if action == "logout":
        had = login.sign_out(manager.state(name).config)
        await manager.stop(name)
        return CommandResult(
            message=f"Signed out of **{name}**." if had else f"{name}: not signed in."
        )
    url = visible(await login.begin_sign_in(manager, name), keep_newlines=False)
    if not url:
        return CommandResult(message=f"Already signed in to **{name}**; the server restarts.")
    return CommandResult(
        message=f"Opened the browser to sign in to **{name}**; if it did not open, visit:\n\n"
        f"<{url}>\n\nThe server restarts once you have signed in."
    )


def register_mcp_commands(commands: CommandRegistry, manager: McpManager | None) -> None:
    """Register ``/mcp`` and keep the MCP prompt commands in step with the servers.

    Args:
        commands: the session's command registry.
        manager: the session's McpManager, or None when no server is configured.
    """

    async def mcp(ctx: CommandContext, text: str) -> CommandResult:
        words = text.split()
        if words and words[0] in EDIT_ACTIONS:
            return _edit(text)
        return await _mcp(manager, words)

    commands.register(
        SlashCommand(
            name="mcp",
            description="MCP servers: list, start, stop, restart, logs, login, logout NAME; "
            "resources; add, add-json, remove NAME (in ~/.agentrc, or --scope workspace)",
            handler=mcp,
            args_hint="[list|start|stop|restart|logs|login|logout NAME|resources|add|remove]",
        )
    )
    if manager is None:
        return
    manager.listeners.append(lambda server: sync_prompt_commands(commands, manager, server))
    for server in manager.servers:
        sync_prompt_commands(commands, manager, server)


MCP_ACTIONS = ("list", "resources", "start", "stop", "restart", "logs", "login", "logout")
EDIT_ACTIONS = ("add", "add-json", "remove")  # the same words as ``agent-tui mcp add …``


def _edit(text: str) -> CommandResult:
    """``/mcp add …``: the app edits the file and starts the server (``Front.mcp.edit``)."""
    import shlex

    try:
        words = shlex.split(text)  # a JSON object or an argument with spaces is quoted
    except ValueError as exc:
        raise UsageError(f"/mcp {text.split()[0]}: {exc}") from None
    return CommandResult(action=EditMcp(tuple(words)))


async def _mcp(manager: McpManager | None, words: list[str]) -> CommandResult:
    """``/mcp [ACTION [NAME]]``: the list, the resources, or an action on one server."""
    action = words[0] if words else "list"
    if action not in MCP_ACTIONS:
        raise UsageError(f"usage: {USAGE}")
    if manager is None or action == "list":
        if action in ("list", "resources"):
            return CommandResult(message=servers_markdown(manager))
        raise UsageError("no MCP servers are configured (add [mcp.servers.NAME] to ~/.agentrc)")
    if action == "resources":
        from agent_tui.mcp.resources import resources_markdown

        return CommandResult(message=resources_markdown(manager))
    if len(words) != 2:
        raise UsageError(f"usage: {USAGE}")
    try:
        return await _server_action(manager, action, words[1])
    except McpError as exc:
        raise UsageError(str(exc)) from exc


async def _server_action(manager: McpManager, action: str, name: str) -> CommandResult:
    state = manager.state(name)
    if action == "logs":
        return CommandResult(message=log_tail(state))
    if action in ("login", "logout"):
        return await _sign_in_or_out(manager, action, state.name)
    if action == "start":
        state = await manager.start(state.name)
    elif action == "stop":
        state = await manager.stop(state.name)
    else:
        state = await manager.restart(state.name)
    detail = f": {state.error}" if state.error else f", {plural(len(state.tools), 'tool')}"
    return CommandResult(message=f"MCP server **{state.name}** is {state.status}{detail}.")
