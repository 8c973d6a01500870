"""/skills: the Agent Skills found, with where each came from."""

from __future__ import annotations

from agent_tui.commands.registry import (
    CommandContext,
    CommandRegistry,
    CommandResult,
    SlashCommand,
)
from agent_tui.skills.discover import USER_SKILL_DIRS, WORKSPACE_SKILL_DIRS, find_skills
from agent_tui.text_safety import one_line


def _cell(text: str) -> str:
    return one_line(text).replace("|", "\\|")


async def _skills(ctx: CommandContext, arguments: str) -> CommandResult:
    skills, notices = find_skills(ctx.agent.deps.workspace)
    if not skills:
        places = ", ".join(f"`{d}/`" for d in (*WORKSPACE_SKILL_DIRS, *USER_SKILL_DIRS))
        lines = [f"No skills found. A skill is a folder with a `SKILL.md` in {places}."]
    else:
        lines = ["| skill | description | from |", "| --- | --- | --- |"]
        lines += [f"| `{s.name}` | {_cell(s.description)} | `{s.source}/` |" for s in skills]
    lines += [f"\n{_cell(n)}" for n in notices]
    return CommandResult(message="\n".join(lines))


def register_skills_commands(registry: CommandRegistry) -> None:
    registry.register(
        SlashCommand("skills", "List the Agent Skills and where they come from", _skills)
    )
