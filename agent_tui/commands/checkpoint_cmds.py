"""/undo and /rewind: put back the files a turn changed, rewind the conversation.

In the app both return a UI action (the app asks about files changed by hand, and /rewind opens a
picker of earlier prompts). Under ``-p``, ``/undo`` works at once: files changed outside the agent
since its last write are skipped with a note unless ``/undo force``; ``/rewind`` needs the app.
"""

from __future__ import annotations

from agent_tui import actions
from agent_tui import events as ev
from agent_tui.checkpoints.editor import undo_through
from agent_tui.checkpoints.restore import apply_undo, describe, plan_undo
from agent_tui.checkpoints.targets import checkpoints_of, turns_named, undo_targets
from agent_tui.commands.registry import CommandContext, CommandRegistry, CommandResult, SlashCommand
from agent_tui.errors import UsageError

OFF = "Checkpoints are off (`[checkpoints] enabled = false` in ~/.agentrc): nothing can be undone."
NOTHING = "Nothing to undo: no turn left file changes to undo."


def _force(args: str) -> bool:
    if args not in ("", "force"):
        raise UsageError(f"/undo takes no argument but `force` (got {args!r})")
    return args == "force"


async def _undo(ctx: CommandContext, args: str) -> CommandResult:
    force = _force(args.strip())
    agent = ctx.agent
    checkpoints = checkpoints_of(agent)
    if checkpoints is None:
        return CommandResult(message=OFF)
    records = undo_targets(agent)
    if not records:
        return CommandResult(message=NOTHING)
    if ctx.interactive:
        return CommandResult(action=actions.Undo(force))
    files = agent.deps.session.files
    if files.editor:  # agent-tui acp with an editor: its buffers are what the turns changed
        report = await undo_through(files, records, checkpoints.workspace, overwrite=force)
    else:
        report = apply_undo(plan_undo(records, checkpoints.workspace), overwrite=force)
    return CommandResult(
        message=describe(report, records),
        emitted=(ev.CheckpointRestored(report.files, None, turns_named(records)),),
    )


async def _rewind(ctx: CommandContext, args: str) -> CommandResult:
    if checkpoints_of(ctx.agent) is None:
        return CommandResult(message=OFF)
    return CommandResult(action=actions.Rewind())


CHECKPOINT_COMMANDS = (
    SlashCommand(
        "undo",
        "Undo the last turn's file changes (asks about files edited since)",
        _undo,
        args_hint="[force]",
    ),
    SlashCommand(
        "rewind",
        "Go back to an earlier prompt: restore code, conversation, or both",
        _rewind,
        interactive_only=True,
    ),
)


def register_checkpoint_commands(registry: CommandRegistry) -> None:
    for command in CHECKPOINT_COMMANDS:
        registry.register(command)
