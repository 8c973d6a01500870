"""``/add-dir PATH``: another folder the tools may read and edit this session, as with
``--add-dir`` (sandbox/extra_roots.py says what an extra root gets and which folders are refused).

The folder joins the session's one list of extra roots (``SessionState.extra_roots``), which the
tools' path check, the approval engine and the sandbox's writable set all read, so nothing else
needs telling; the sandbox's policy is rebuilt with it for the next command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.commands.registry import CommandContext, CommandResult, SlashCommand
from agent_tui.errors import UsageError
from agent_tui.text_safety import visible

if TYPE_CHECKING:
    from pathlib import Path

    from agent_tui.agent.loop import AgentDeps


def add_extra_root(deps: AgentDeps, raw: str) -> Path:
    """Check ``raw`` and add it to the session's extra roots and the sandbox's writable set.

    Raises:
        UsageError: the folder cannot be an extra root (the message says why).
    """
    from agent_tui.sandbox.extra_roots import add_checked_root, check_extra_root

    full = check_extra_root(raw, deps.workspace, deps.session.extra_roots)
    add_checked_root(deps.session.extra_roots, deps.sandbox, full)
    return full


async def _add_dir(ctx: CommandContext, args: str) -> CommandResult:
    from agent_tui.agent.loop import Agent

    agent = ctx.agent
    if not isinstance(agent, Agent):
        raise TypeError(f"/add-dir needs the session's Agent, not {type(agent).__name__}")
    try:
        full = add_extra_root(agent.deps, args)
    except UsageError as exc:
        return CommandResult(message=f"Not added: {visible(str(exc))}")
    return CommandResult(
        message=(
            f"Added `{visible(str(full))}`: the tools may read and edit it as the workspace, "
            "under the same approvals, protected paths and sandbox (for this session, and "
            "again when it is resumed)."
        )
    )


ADD_DIR_COMMAND = SlashCommand(
    "add-dir",
    "Let the tools read and edit another folder this session, as the workspace",
    _add_dir,
    args_hint="PATH",
)
