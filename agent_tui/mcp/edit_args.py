"""The words of ``mcp add | add-json | remove | get``, and the change they ask for.

Shared by the shell's ``agent-tui mcp …`` (``cli_edit.py``) and the app's ``/mcp add …`` (through
``front/mcp.py``): one parser, one reading of the options into a ``[mcp.servers.NAME]`` entry and
one change of the file (``edit.py``). In the app the parser raises ``UsageError`` instead of
printing and exiting, and has no ``-C`` (the session's workspace is the one) and no ``-h``.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, NoReturn

from agent_tui.errors import UsageError
from agent_tui.mcp.edit import SCOPES, Scope, entry_from_json, pairs, target

EDIT_COMMANDS = ("add", "add-json", "remove")
ADD_HELP = (
    "add an MCP server to .agentrc: a command (after --, e.g. "
    "`agent-tui mcp add time -- uvx mcp-server-time`) or --url for an HTTP server"
)
ADD_JSON_HELP = (
    "add an MCP server from Claude Code's JSON: "
    '\'{"type": "stdio", "command": "npx", "args": ["-y", "pkg"], "env": {"K": "v"}}\' '
    'or \'{"type": "http", "url": "https://…", "headers": {"Authorization": "Bearer …"}}\''
)


class _AppParser(argparse.ArgumentParser):
    """Raises instead of writing to stderr and exiting: the app shows the message."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def parser(command: str, *, in_app: bool = False) -> argparse.ArgumentParser:
    """The options of ``mcp COMMAND`` (``add``, ``add-json``, ``remove``, ``get``)."""
    kind = _AppParser if in_app else argparse.ArgumentParser
    parser = kind(prog=f"{'/mcp' if in_app else 'agent-tui mcp'} {command}", add_help=not in_app)
    add = parser.add_argument
    if not in_app:
        add("-C", "--workspace", type=Path, default=None, help="workspace folder (default: cwd)")
    add("name", metavar="NAME")
    if command in EDIT_COMMANDS:
        add(
            "--scope",
            choices=SCOPES,
            default="user",
            help="~/.agentrc (user, the default) or the workspace's .agentrc",
        )
    if command in ("add", "add-json"):
        add("--force", action="store_true", help="replace a server of that name")
    if command == "add":
        _add_options(parser)
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


def _add_options(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
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


def parse(command: str, argv: list[str], *, in_app: bool = False) -> argparse.Namespace:
    """``argv`` read as ``mcp COMMAND``'s options.

    Everything after the first ``--`` of ``add`` is the server's command, options included
    (argparse would give its words to NAME's chunk and refuse the rest).

    Raises:
        UsageError: (``in_app``) the words do not fit the options.
    """
    cut = argv.index("--") if command == "add" and "--" in argv else len(argv)
    args = parser(command, in_app=in_app).parse_args(argv[:cut])
    if command == "add":
        args.command = [*args.command, *argv[cut + 1 :]]
    return args


def change(command: str, args: argparse.Namespace, workspace: Path) -> str:
    """Add or remove the server ``args`` names; says what was done.

    Raises:
        AgentError: a usage or config error; the file is untouched.
    """
    from agent_tui.mcp.edit import add_server

    where = target(args.scope, workspace)
    if command == "remove":
        return _remove(args.name, args.scope, workspace)
    entry = entry_from_args(args) if command == "add" else entry_from_json(args.json)
    add_server(where, args.name, entry, force=args.force)
    return f"Added MCP server {args.name} to {where.path}"


def _remove(name: str, scope: Scope, workspace: Path) -> str:
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
    return f"Removed MCP server {name} from {where.path}"


def entry_from_args(args: argparse.Namespace) -> dict[str, Any]:
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
