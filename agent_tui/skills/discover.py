"""Find skills: ``.agents/skills/`` and ``.claude/skills/`` in the workspace, then the user's own.

Workspace skills are read before trust, as prompt files and ``AGENTS.md`` are: a skill is text for
the model, it runs nothing by itself, and everything the model then does with it goes through the
approvals. What a cloned repository must not do is reach outside itself, so a workspace skill folder
(or its ``SKILL.md``) that resolves outside the workspace is skipped with a notice. User-level skills
live outside the workspace by design; their files are confined to their own folder (see
:func:`skill_file`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ConfigError, ToolError
from agent_tui.front_matter import parse_front_matter
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.tools.workspace_paths import OutsideWorkspace, is_inside, require_inside

WORKSPACE_SKILL_DIRS = (".agents/skills", ".claude/skills")
USER_SKILL_DIRS = ("~/.agents/skills", "~/.claude/skills")
SKILL_FILE = "SKILL.md"
# The Agent Skills specification: 1-64 characters, lowercase letters, digits and single hyphens,
# matching the folder name; a description of at most 1,024 characters.
NAME = lazy_pattern(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_SKILL_CHARS = 48_000  # a body or file longer than this is cut with a note


@dataclass(frozen=True)
class Skill:
    """One skill: where it came from and what the system prompt says about it."""

    name: str
    description: str
    folder: Path  # resolved
    source: str  # ".agents/skills" or "~/.claude/skills": the folder it was found in
    workspace: bool  # found in the workspace (its paths count for the approval rules)


def _problem(name: object, description: object, folder: str) -> str | None:
    if not isinstance(name, str) or not name:
        return "no `name` in its front matter"
    if len(name) > MAX_NAME or not NAME().match(name):
        return f"the name {name!r} is not 1-64 lowercase letters, digits and single hyphens"
    if name != folder:
        return f"the name {name!r} differs from its folder name {folder!r}"
    if not isinstance(description, str) or not description.strip():
        return "no `description` in its front matter"
    if len(description) > MAX_DESCRIPTION:
        return f"its description is longer than {MAX_DESCRIPTION} characters"
    return None


def _read_skill(folder: Path, source: str, in_workspace: bool) -> Skill:
    """Parse ``folder/SKILL.md``.

    Raises:
        ConfigError: the file is unreadable or breaks the format's rules.
    """
    try:
        text = read_text(folder / SKILL_FILE, MAX_TEXT_FILE_BYTES)
    except OSError as exc:
        raise ConfigError(f"cannot read it: {exc.strerror or exc}") from None
    meta, _ = parse_front_matter(text, str(folder / SKILL_FILE))
    problem = _problem(meta.get("name"), meta.get("description"), folder.name)
    if problem:
        raise ConfigError(problem)
    return Skill(str(meta["name"]), str(meta["description"]).strip(), folder, source, in_workspace)


def _candidates(base: Path) -> list[Path]:
    try:
        return sorted(p for p in base.iterdir() if (p / SKILL_FILE).exists())
    except OSError:
        return []


def find_skills(workspace: Path, *, home: Path | None = None) -> tuple[list[Skill], list[str]]:
    """Every usable skill (workspace ones first; the first of a name wins) and a notice per skip.

    Args:
        workspace: the workspace root.
        home: the user's home (default: ``Path.home()``).
    """
    skills: dict[str, Skill] = {}
    notices: list[str] = []
    home = home or Path.home()
    places = [(workspace / d, d, True) for d in WORKSPACE_SKILL_DIRS]
    places += [(home / d.removeprefix("~/"), d, False) for d in USER_SKILL_DIRS]
    for base, source, in_workspace in places:
        for folder in _candidates(base):
            shown = f"{source}/{folder.name}"
            try:
                if in_workspace:
                    real = require_inside(workspace, folder / SKILL_FILE).parent
                    if real != require_inside(workspace, folder):
                        raise OutsideWorkspace(shown, real, workspace)
                else:
                    real = Path(os.path.realpath(folder))
                skill = _read_skill(real, source, in_workspace)
            except OutsideWorkspace as exc:
                notices.append(
                    f"skill {shown} not used: it leads to {exc.target}, outside the workspace"
                )
                continue
            except ConfigError as exc:
                notices.append(f"skill {shown} not used: {exc}")
                continue
            skills.setdefault(skill.name, skill)
    return list(skills.values()), notices


def skill_file(skill: Skill, relative: str) -> Path:
    """A file of ``skill``, refusing anything that resolves outside the skill's folder.

    Raises:
        ToolError: the path is absolute, leaves the folder (``..``, a symbolic link) or is missing.
    """
    candidate = Path(relative)
    if candidate.is_absolute() or relative.startswith("~"):
        raise ToolError(f"`file` must be relative to the skill's folder, not {relative!r}.")
    full = Path(os.path.realpath(skill.folder / candidate))
    if not is_inside(skill.folder, full):
        raise ToolError(
            f"{relative} leads to {full}, outside the skill's folder ({skill.folder}); "
            "only the skill's own files can be read."
        )
    if not full.is_file():
        raise ToolError(f"{relative} is not a file of skill {skill.name}: {list_files(skill)}")
    return full


def list_files(skill: Skill, limit: int = 100) -> str:
    """The skill's files other than SKILL.md (relative, sorted), as one line for the model."""
    names: list[str] = []
    for dirpath, dirnames, filenames in os.walk(skill.folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            rel = Path(dirpath, filename).relative_to(skill.folder).as_posix()
            if rel != SKILL_FILE:
                names.append(rel)
    if not names:
        return "the skill has no other files."
    more = f" (and {len(names) - limit} more)" if len(names) > limit else ""
    return "its files: " + ", ".join(names[:limit]) + more
