"""``/hooks``: every hook that applies, with its event, matcher and source, and those left out."""

from __future__ import annotations

from agent_tui.commands.registry import CommandContext, CommandResult, SlashCommand
from agent_tui.hooks.agent_hooks import hook_set
from agent_tui.text_safety import visible


def _cell(text: str) -> str:
    return visible(text).replace("|", "\\|").replace("\n", " ")


async def _hooks(ctx: CommandContext, args: str) -> CommandResult:
    found = hook_set(ctx.agent.deps)
    if not found.hooks:
        lines = ["No hooks configured (`[hooks]` in .agentrc, or .claude/settings.json)."]
    else:
        lines = [
            "| event | matcher | command | timeout | source |",
            "| --- | --- | --- | --- | --- |",
        ]
        for hook in found.hooks:
            lines.append(
                f"| {hook.event} | `{_cell(hook.matcher or '*')}` | `{_cell(hook.command)}` | "
                f"{hook.timeout_s:g} s | {_cell(hook.source)} |"
            )
    if found.notices:
        lines += ["", *(f"- {_cell(notice)}" for notice in found.notices)]
    return CommandResult(message="\n".join(lines))


HOOKS_COMMAND = SlashCommand(
    "hooks", "List the hooks that run on agent events, and their source", _hooks
)
