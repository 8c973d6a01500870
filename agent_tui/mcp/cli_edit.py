"""``agent-tui mcp add | add-json | remove | get``: MCP servers in ``.agentrc``, from the shell.

``--scope user`` (the default) edits ``~/.agentrc``, ``--scope workspace`` the folder's
``.agentrc`` (which a session reads only once the folder is trusted). ``mcp/edit.py`` does the
editing and refuses what a session would not load. Exit codes: 0 done, 2 a usage or config error
(the file untouched).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_tui.errors import AgentError, UsageError
from agent_tui.mcp.edit import SCOPES, Scope, entry_from_json, pairs, target

ADD_HELP = (
    "add an MCP server to .agentrc: a command (after --, e.g. "
    "`agent-tui mcp add time -- uvx mcp-server-time`) or --url for an HTTP server"
)
ADD_JSON_HELP = (
    "add an MCP server from Claude Code's JSON: "
    '\'{"type": "stdio", "command": "npx", "args": ["-y", "pkg"], "env": {"K": "v"}}\' '
    'or \'{"type": "http", "url": "https://…", "headers": {"Authorization": "Bearer …"}}\''
)


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=f"agent-tui mcp {command}")
    add = parser.add_argument
    add("-C", "--workspace", type=Path, default=None, help="workspace folder (default: cwd)")
    add("name", metavar="NAME")
    if command in ("add", "add-json", "remove"):
        add(
            "--scope",
            choices=SCOPES,
            default="user",
            help="~/.agentrc (user, the default) or the workspace's .agentrc",
        )
    if command in ("add", "add-json"):
        add("--force", action="store_true", help="replace a server of that name")
    if command == "add":
        parser.description = ADD_HELP
        add("command", metavar="CMD", nargs="*", help="the command and its arguments, after --")
        add("--url", help="an HTTP server's URL (streamable HTTP; --transport sse for legacy SSE)")
        add("--transport", choices=("stdio", "http", "sse"), default=None)
        add(
            "-e",
            "--env",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="an environment variable for the command (repeatable)",
        )
        add(
            "-H",
            "--header",
            action="append",
            default=[],
            metavar="'Name: value'",
            help="an HTTP header for a --url server (repeatable)",
        )
    elif command == "add-json":
        parser.description = ADD_JSON_HELP
        add("json", metavar="JSON")
    elif command == "remove":
        parser.description = "remove an MCP server from .agentrc"
    else:
        parser.description = (
            "show server NAME as configured and which file defines it (env and header values "
            "masked)"
        )
        add("--json", action="store_true", help="print a JSON object")
    return parser


def main(command: str, argv: list[str]) -> int:
    """Run ``agent-tui mcp COMMAND ARGV``; returns the exit code.

    Raises:
        AgentError: a usage or config error; nothing was written.
    """
    # Everything after the first -- is the server's command, options included (argparse would
    # give its words to NAME's chunk and refuse the rest).
    cut = argv.index("--") if command == "add" and "--" in argv else len(argv)
    args = _parser(command).parse_args(argv[:cut])
    if command == "add":
        args.command = [*args.command, *argv[cut + 1 :]]
    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise UsageError(f"workspace {workspace} is not a folder")
    if command == "get":
        from agent_tui.mcp.cli_get import show

        return show(args.name, workspace, as_json=args.json)
    from agent_tui.mcp.edit import add_server

    where = target(args.scope, workspace)
    if command == "remove":
        _remove(args.name, args.scope, workspace)
        return 0
    entry = _entry(args) if command == "add" else entry_from_json(args.json)
    try:
        add_server(where, args.name, entry, force=args.force)
    except AgentError as exc:
        sys.stderr.write(f"agent-tui: {args.name} not added, {where.path} unchanged: {exc}\n")
        return exc.exit_code
    sys.stdout.write(f"Added MCP server {args.name} to {where.path}\n")
    _trust_note(args.scope, workspace)
    return 0


def _remove(name: str, scope: Scope, workspace: Path) -> None:
    from agent_tui.mcp.edit import read_file, remove_server, servers_in

    where = target(scope, workspace)
    try:
        remove_server(where, name)
    except UsageError:
        other = target("workspace" if scope == "user" else "user", workspace)
        if name in servers_in(read_file(other), other):
            raise UsageError(
                f"{where.path} has no MCP server named {name!r}; {other.path} has "
                f"(--scope {other.scope})"
            ) from None
        raise
    sys.stdout.write(f"Removed MCP server {name} from {where.path}\n")


def _entry(args: argparse.Namespace) -> dict[str, Any]:
    """The ``[mcp.servers.NAME]`` table ``mcp add``'s options describe."""
    if bool(args.command) == bool(args.url):
        raise UsageError("give the server's command after -- or its --url (one of the two)")
    env = pairs(args.env, "=", "--env")
    headers = pairs(args.header, ":", "--header")
    entry: dict[str, Any] = {}
    if args.url:
        if args.transport == "stdio" or env:
            raise UsageError("--url is an HTTP server: --transport stdio and --env do not apply")
        entry = {"type": args.transport or "http", "url": args.url}
        if headers:
            entry["headers"] = headers
        return entry
    if args.transport not in (None, "stdio") or headers:
        raise UsageError(
            "a command is a stdio server: --transport http/sse and --header need --url"
        )
    entry = {"command": args.command[0]}
    if args.command[1:]:
        entry["args"] = args.command[1:]
    if env:
        entry["env"] = env
    return entry


def _trust_note(scope: Scope, workspace: Path) -> None:
    if scope != "workspace":
        return
    from agent_tui.approvals.trust import is_trusted

    if not is_trusted(workspace):
        sys.stderr.write(
            "note: this folder is not trusted, so its .agentrc servers start only once it is "
            "(the app asks; agent-tui mcp list --trust tries them now)\n"
        )
