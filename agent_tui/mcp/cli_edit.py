"""``agent-tui mcp add | add-json | remove | get``: MCP servers in ``.agentrc``, from the shell.

``--scope user`` (the default) edits ``~/.agentrc``, ``--scope workspace`` the folder's
``.agentrc`` (which a session reads only once the folder is trusted). ``mcp/edit_args.py`` reads
the words (the app's ``/mcp add`` too) and ``mcp/edit.py`` does the editing and refuses what a
session would not load. Exit codes: 0 done, 2 a usage or config error
(the file untouched).
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent_tui.errors import AgentError, UsageError
from agent_tui.mcp.edit import Scope, target
from agent_tui.mcp.edit_args import change, parse


def main(command: str, argv: list[str]) -> int:
    """Run ``agent-tui mcp COMMAND ARGV``; returns the exit code.

    Raises:
        AgentError: a usage or config error; nothing was written.
    """
    args = parse(command, argv)
    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise UsageError(f"workspace {workspace} is not a folder")
    if command == "get":
        from agent_tui.mcp.cli_get import show

        return show(args.name, workspace, as_json=args.json)
    if command == "remove":
        sys.stdout.write(change(command, args, workspace) + "\n")
        return 0
    where = target(args.scope, workspace)
    try:
        done = change(command, args, workspace)
    except AgentError as exc:
        sys.stderr.write(f"agent-tui: {args.name} not added, {where.path} unchanged: {exc}\n")
        return exc.exit_code
    sys.stdout.write(done + "\n")
    _trust_note(args.scope, workspace)
    return 0


def _trust_note(scope: Scope, workspace: Path) -> None:
    if scope != "workspace":
        return
    from agent_tui.approvals.trust import is_trusted

    if not is_trusted(workspace):
        sys.stderr.write(
            "note: this folder is not trusted, so its .agentrc servers start only once it is "
            "(the app asks; agent-tui mcp list --trust tries them now)\n"
        )
