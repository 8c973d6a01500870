"""``/terminals``: the session's background terminals, to see their state and kill one.

The app opens a list (ui/screens/terminals.py). Headless it is refused like /rewind: a ``-p`` run
kills its background terminals when it exits, so there is never one left to list.
"""

from __future__ import annotations

from agent_tui.actions import Terminals
from agent_tui.commands.registry import CommandContext, CommandResult, SlashCommand


async def _terminals(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(action=Terminals())


TERMINALS_COMMAND = SlashCommand(
    "terminals",
    "List the background terminals (state, how long, output) and kill one",
    _terminals,
    interactive_only=True,
)
