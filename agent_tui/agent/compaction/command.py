"""``/compact [focus]``: summarise the older turns now (a built-in of the command registry)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from agent_tui import events as ev
from agent_tui.commands.registry import CommandContext, CommandRegistry, CommandResult, SlashCommand


async def _compact(ctx: CommandContext, args: str) -> CommandResult:
    from agent_tui.agent.compaction.run import compact
    from agent_tui.agent.loop import Agent

    agent = ctx.agent
    if not isinstance(agent, Agent):  # the planner hands the Agent itself (TurnCommandContext)
        raise TypeError(f"/compact needs the session's Agent, not {type(agent).__name__}")

    def run() -> AsyncIterator[ev.Event]:
        return compact(agent, args.strip())

    return CommandResult(events=run)


COMPACT_COMMAND = SlashCommand(
    "compact",
    "Replace older turns with a summary the model writes",
    _compact,
    args_hint="[focus]",
)


def register_compact_command(registry: CommandRegistry) -> None:
    registry.register(COMPACT_COMMAND)
