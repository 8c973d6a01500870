"""``agent-tui mcp list | tools NAME | call NAME TOOL [JSON-ARGS]``: MCP servers from the shell.

The same config as a session: ``~/.agentrc``, and the workspace's ``.agentrc``, ``.mcp.json`` and
``.vscode/mcp.json`` only when the folder is trusted (or with ``--trust``). ``mcp call`` runs the
tool without asking: typing the command is the approval. Exit codes as the rest of agent-tui: 0 ok,
1 a tool error or a server that failed, 2 a usage or config error.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.errors import UsageError
from agent_tui.text_safety import one_line, visible

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.mcp.manager import McpManager, ServerState

COMMANDS = ("list", "tools", "call")
CALL_HELP = (
    "run TOOL of server NAME with JSON-ARGS (an object, default {}) and print its result. "
    "It runs without asking for approval, even a tool that changes things: typing the command "
    "is the approval. Exit 1 if the tool reports an error."
)


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"agent-tui mcp {command}")
    add = parser.add_argument
    add("-C", "--workspace", type=Path, default=None, help="workspace folder (default: cwd)")
    add("--trust", action="store_true", help="read this workspace's MCP servers for this run")
    if command == "list":
        parser.description = "connect to every configured server and list them"
        add("--json", action="store_true", help="print a JSON array")
    elif command == "tools":
        parser.description = "connect to server NAME and list its tools"
        add("name", metavar="NAME")
        add("--json", action="store_true", help="print the tools as a JSON array")
    else:
        parser.description = CALL_HELP
        add("name", metavar="NAME")
        add("tool", metavar="TOOL")
        add("arguments", metavar="JSON-ARGS", nargs="?", default="{}")
    return parser


def main(command: str, argv: list[str]) -> int:
    """Run ``agent-tui mcp COMMAND ARGV``; returns the exit code.

    Raises:
        AgentError: a config error (exit 2), an unknown server or tool, bad JSON-ARGS.
    """
    args = _parser(command).parse_args(argv)
    config = _load(args)
    from agent_tui.mcp.manager import McpManager

    manager = McpManager.from_config(config, tools=None)
    for notice in manager.notices:
        sys.stderr.write(f"note: {visible(notice)}\n")
    if command == "list":
        return asyncio.run(_with(manager, lambda: _list(manager, config, args.json)))
    if args.name not in manager.servers:  # a usage error, before anything starts
        known = ", ".join(sorted(manager.servers)) or "none configured"
        raise UsageError(f"no MCP server named {args.name!r} (servers: {known})")
    if command == "tools":
        return asyncio.run(_with(manager, lambda: _tools(manager, args.name, args.json)))
    arguments = _arguments(args.arguments)
    return asyncio.run(_with(manager, lambda: _call(manager, args.name, args.tool, arguments)))


def _load(args: argparse.Namespace) -> Config:
    from agent_tui.approvals.trust import is_trusted
    from agent_tui.config import load_config
    from agent_tui.logs import setup_logging
    from agent_tui.paths import state_dir
    from agent_tui.state_files import check_writable

    check_writable(state_dir())
    setup_logging()
    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise UsageError(f"workspace {workspace} is not a folder")
    trusted = args.trust or is_trusted(workspace)
    config = load_config(workspace, trusted=trusted)
    from agent_tui.sandbox.policy import build_policy
    from agent_tui.sandbox.runtime import Sandbox, set_current

    set_current(Sandbox(build_policy(config, workspace)))  # for servers with sandbox = true
    return config


def _arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"JSON-ARGS is not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise UsageError('JSON-ARGS must be a JSON object, e.g. \'{"message": "hi"}\'')
    return value


async def _with(manager: McpManager, body: Any) -> int:
    try:
        result: int = await body()
        return result
    finally:
        await manager.aclose()


def defined_in(state: ServerState, config: Config) -> str:
    """The file that defines the server (a workspace's ``.agentrc`` wins over ``~/.agentrc``)."""
    origin = state.config.origin
    if origin != ".agentrc":
        return origin
    for path in reversed(config.files):
        try:
            with path.open("rb") as fh:
                servers = tomllib.load(fh).get("mcp", {}).get("servers", {})
        except (OSError, tomllib.TOMLDecodeError):
            continue
        if state.name in servers and (config.trusted or path.parent != config.workspace):
            return str(path)
    return origin


async def _list(manager: McpManager, config: Config, as_json: bool) -> int:
    manager.start_all()
    await manager.wait_started()
    rows: list[dict[str, Any]] = []
    for name, state in manager.servers.items():
        rows.append(
            {
                "name": name,
                "status": state.status,
                "tools": len(state.tools),
                "defined_in": defined_in(state, config),
                "error": state.error,
            }
        )
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
    elif not rows:
        sys.stdout.write("No MCP servers configured (see README: MCP servers).\n")
    else:
        width = max(len(row["name"]) for row in rows)
        for row in rows:
            status = str(row["status"]) + (f" ({row['error']})" if row["error"] else "")
            tools = f"{row['tools']} tools" if row["status"] == "running" else "-"
            line = f"{row['name']:<{width}}  {tools:>9}  {status}  {row['defined_in']}"
            sys.stdout.write(one_line(line) + "\n")
    return 0


async def _started(manager: McpManager, name: str) -> ServerState | None:
    state = await manager.start(name)
    if state.status != "running":
        sys.stderr.write(f"agent-tui: MCP server {name} {state.status}: {visible(state.error)}\n")
        return None
    return state


async def _tools(manager: McpManager, name: str, as_json: bool) -> int:
    state = await _started(manager, name)
    if state is None:
        return 1
    if as_json:
        tools = [
            {
                "name": tool.name,
                "title": tool.title,
                "description": tool.description,
                "read_only": tool.read_only_hint,
                "input_schema": tool.input_schema,
            }
            for tool in state.tools
        ]
        sys.stdout.write(json.dumps(tools, ensure_ascii=False, indent=2) + "\n")
        return 0
    for tool in state.tools:
        summary = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
        mark = " (read-only)" if tool.read_only_hint else ""
        sys.stdout.write(one_line(f"{tool.name}{mark}  {summary}") + "\n")
    return 0


async def _call(manager: McpManager, name: str, tool: str, arguments: dict[str, Any]) -> int:
    from agent_tui.errors import McpError
    from agent_tui.mcp.tools import to_tool_result

    state = await _started(manager, name)
    if state is None:
        return 1
    if tool not in {t.name for t in state.tools}:
        known = ", ".join(t.name for t in state.tools) or "none"
        raise UsageError(f"MCP server {name} has no tool {tool!r} (tools: {visible(known)})")
    try:
        outcome = await manager.call_tool(name, tool, arguments)
    except McpError as exc:
        sys.stderr.write(f"agent-tui: {visible(str(exc))}\n")
        return 1
    result = to_tool_result(outcome)
    (sys.stderr if result.is_error else sys.stdout).write(visible(result.content) + "\n")
    return 1 if result.is_error else 0
