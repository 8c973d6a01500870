"""The system prompt's list of skills: one line each, within a character budget."""

from __future__ import annotations

from agent_tui.skills.discover import Skill
from agent_tui.text_safety import one_line

# The list rides on every request; past this, later skills are named without their descriptions.
SKILLS_BUDGET = 4_000
MAX_NAMES_CHARS = 1_000  # the names given without descriptions, past the budget


def skills_section(skills: list[Skill], budget: int = SKILLS_BUDGET) -> str:
    """The "# Skills" section, or "" when there are none."""
    if not skills:
        return ""
    head = (
        "# Skills\nSkills hold instructions for particular tasks. When a task matches a skill's "
        "description, call `read_skill` with its name first and follow what it says; read the "
        "files it mentions with `read_skill` and `file`."
    )
    lines: list[str] = []
    used = len(head)
    left_out: list[str] = []
    for skill in skills:
        line = f"- {skill.name}: {one_line(skill.description)}"
        if used + len(line) + 1 > budget:
            left_out.append(skill.name)
            continue
        lines.append(line)
        used += len(line) + 1
    if left_out:
        # Names only, and only so many: a workspace with hundreds of skills still fits.
        names = ", ".join(left_out)
        if len(names) > MAX_NAMES_CHARS:
            names = names[:MAX_NAMES_CHARS].rsplit(", ", 1)[0]
            names += f" … and {len(left_out) - names.count(', ') - 1} more"
        lines.append("- also (no room for their descriptions): " + names)
    return "\n".join([head, *lines])
