"""read_skill: a skill's SKILL.md body (and file list), or one of its files.

Skills are found again on every call, so a skill added or edited during a session is seen at once.
The file is confined to the skill's own folder (realpath-checked; a link leading out is refused), and
for a workspace skill it also passes the workspace check, since its folder lies in the workspace.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.front_matter import parse_front_matter
from agent_tui.safe_read import read_text_head
from agent_tui.skills.discover import (
    MAX_SKILL_CHARS,
    SKILL_FILE,
    Skill,
    find_skills,
    list_files,
    skill_file,
)
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.fs_args import optional_str
from agent_tui.tools.workspace_paths import require_inside


def _skill(input: dict[str, Any], ctx: ToolContext) -> Skill:
    name = optional_str(input, "name") or ""
    skills, _ = find_skills(ctx.workspace)
    for skill in skills:
        if skill.name == name:
            return skill
    known = ", ".join(s.name for s in skills) or "none"
    raise ToolError(f"No skill named {name!r}. Skills available: {known}.")


def _target(input: dict[str, Any], ctx: ToolContext) -> tuple[Skill, Path, str]:
    skill = _skill(input, ctx)
    relative = optional_str(input, "file") or ""
    path = skill_file(skill, relative) if relative else skill.folder / SKILL_FILE
    if skill.workspace:
        require_inside(ctx.workspace, path)  # the skill folder is inside; so must its file be
    return skill, path, relative or SKILL_FILE


def _read(skill: Skill, path: Path, shown: str) -> ToolResult:
    try:
        text = read_text_head(path, MAX_SKILL_CHARS)
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}.") from None
    if shown == SKILL_FILE:
        text = parse_front_matter(text, str(path))[1] + f"\n\n({list_files(skill)})"
    if len(text) > MAX_SKILL_CHARS:
        text = text[:MAX_SKILL_CHARS] + f"\n[… {shown} cut at {MAX_SKILL_CHARS} characters]"
    return ToolResult(f'<skill name="{skill.name}" file="{shown}">\n{text}\n</skill>')


class ReadSkillTool(BaseTool):
    """Load a skill's instructions or files."""

    name = "read_skill"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        skill, path, shown = _target(input, ctx)
        return Prepared(
            invocation_message=f"Reading skill {skill.name} ({shown})",
            past_tense_message=f"Read skill {skill.name} ({shown})",
            # A user-level skill lies outside the workspace by design and is confined to its
            # folder above; a workspace skill's path goes to the approval rules like read_file's.
            paths=(path,) if skill.workspace else (),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        skill, path, shown = _target(input, ctx)
        return await asyncio.to_thread(_read, skill, path, shown)
