"""get_changed_files (DESIGN §4): the workspace's staged, unstaged and untracked changes with diffs.

Runs git through :class:`~agent_tui.tools.git_safe.SafeGit` (no fsmonitor, filters, textconv,
external diff or hooks from the repository's config): ``git status --porcelain -z`` for the file
lists (stable, unquoted paths) and ``git diff`` for the patches. Untracked files are read only when
they are regular files inside the workspace; a symbolic link is shown as its target, not followed.
Diffs are capped per file and in total, and the output says when something was cut.
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.plural import plural
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.git_safe import DIFF_FLAGS, SUBMODULES, GitResult, SafeGit
from agent_tui.tools.workspace_paths import inside_workspace

PER_FILE_CHARS = 4_000
TOTAL_CHARS = 30_000
MAX_LISTED = 200  # files named per section
UNTRACKED_READ_BYTES = 64 * 1024

_STATUS_NAMES = {
    "M": "modified",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type changed",
    "U": "conflict",
}


@dataclass
class Changes:
    """A repository's changes: its HEAD, and the staged, unstaged and untracked files."""

    root: Path
    head: str  # "branch main", "detached HEAD at 1a2b3c4", "branch main, no commits yet"
    staged: list[tuple[str, str]] = field(default_factory=list)  # (status name, path)
    unstaged: list[tuple[str, str]] = field(default_factory=list)
    untracked: list[str] = field(default_factory=list)


def _repo_root(git: SafeGit, workspace: Path) -> Path:
    root = git.work_tree(workspace)
    if root is None:
        raise ToolError(
            f"not a git repository: {workspace} (nor any folder above it), so there are no git "
            "changes to show. Use list_dir or file_search to look at the files instead."
        )
    return root


def _head(git: SafeGit) -> str:
    branch = git.run("symbolic-ref", "-q", "--short", "HEAD")
    if branch.code != 0:  # detached HEAD
        return f"detached HEAD at {git.run('rev-parse', '--short=7', 'HEAD').out.strip()}"
    name = f"branch {branch.out.strip()}"
    has_commits = git.run("rev-parse", "-q", "--verify", "HEAD").code == 0
    return name if has_commits else f"{name}, no commits yet"


def _parse_status(porcelain: str, changes: Changes) -> None:
    """Fill the lists from ``git status --porcelain=v1 -z`` output."""
    entries = iter(porcelain.split("\0"))
    for entry in entries:
        if len(entry) < 4:
            continue
        x, y, path = entry[0], entry[1], entry[3:]
        if x in "RC":
            next(entries, None)  # the rename's source path follows as its own entry
        if x == "?":
            changes.untracked.append(path)
        elif "U" in (x, y) or (x == y and x in "AD"):
            changes.unstaged.append(("conflict", path))
        else:
            if x not in " !":
                changes.staged.append((_STATUS_NAMES.get(x, x), path))
            if y not in " !":
                changes.unstaged.append((_STATUS_NAMES.get(y, y), path))


def _split_diff(diff: str) -> list[str]:
    return [part for part in re.split(r"(?m)^(?=diff --git )", diff) if part.strip()]


class _Budget:
    """Caps each file's diff and the total, remembering what it left out."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.omitted: list[str] = []

    def take(self, name: str, text: str) -> str | None:
        if self.left <= 0:
            self.omitted.append(name)
            return None
        limit = min(PER_FILE_CHARS, self.left)
        if len(text) > limit:
            cut = text.rfind("\n", 0, limit)
            cut = cut if cut > 0 else limit
            more = text.count("\n", cut) + 1
            text = text[:cut] + f"\n[... diff cut here: {plural(more, 'more line')}]"
        self.left -= len(text)
        return text


def _untracked_diff(workspace: Path, root: Path, path: str) -> str:
    full = root / path
    # Git lists a symbolic link as itself; show it as git would (its target), never follow it:
    # a link to ~/.ssh/id_rsa must not put the key in the report.
    if full.is_symlink():
        return f"new symbolic link {path} -> {os.readlink(full)} (not followed)"
    if inside_workspace(workspace, full) is None:
        return f"new file {path}: not read, it resolves outside the workspace"
    try:
        size = full.stat().st_size
        with full.open("rb") as fh:
            data = fh.read(UNTRACKED_READ_BYTES)
    except OSError as exc:
        return f"new file {path}: cannot be read ({exc.strerror})"
    if b"\0" in data[:8192]:
        return f"new file {path}: binary, {size:,} bytes"
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    body = "\n".join("+" + line for line in lines)
    count = f"{len(lines)} line{'s' if len(lines) != 1 else ''}"
    return f"new file {path} (untracked, {count})\n{body}"


def _listing(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    lines = [f"{title} ({len(items)}):"] + [f"  {item}" for item in items[:MAX_LISTED]]
    if len(items) > MAX_LISTED:
        lines.append(f"  ... and {len(items) - MAX_LISTED} more")
    return lines


def collect(workspace: Path, staged_only: bool) -> str:
    """The report get_changed_files returns (blocking: runs git)."""
    root, changes, staged_diff, unstaged_diff = _read_changes(workspace, staged_only)
    lines = [f"Repository: {root} ({changes.head})"]
    if not (changes.staged or changes.unstaged or changes.untracked):
        return lines[0] + "\nNo changes: the working tree is clean."
    lines += _listings(changes, staged_only)
    budget = _Budget(TOTAL_CHARS)
    sections: list[tuple[str, Iterable[str]]] = [("Staged diff", _split_diff(staged_diff))]
    if not staged_only:
        sections.append(("Unstaged diff", _split_diff(unstaged_diff)))
        # A generator: untracked files are read only while the budget lasts.
        untracked = (
            _untracked_diff(workspace, root, p) if budget.left > 0 else f"new file {p}"
            for p in changes.untracked[:MAX_LISTED]
        )
        sections.append(("Untracked files", untracked))
    for title, parts in sections:
        kept = [text for part in parts if (text := budget.take(part.partition("\n")[0], part))]
        if kept:
            lines += ["", f"## {title}", *kept]
    if budget.omitted:
        lines += [
            "",
            f"[Total cap reached: diffs of {len(budget.omitted)} more files left out. "
            "Run `git diff -- <path>` in the terminal for a specific file.]",
        ]
    return "\n".join(lines)


def _read_changes(workspace: Path, staged_only: bool) -> tuple[Path, Changes, str, str]:
    """The repository's root, its changed files under the workspace, and the staged and
    unstaged diffs (git's own output)."""
    git = SafeGit(workspace)
    root = _repo_root(git, workspace)
    git.cwd = root  # porcelain paths are relative to the repository root
    rel = workspace.resolve().relative_to(root).as_posix() if workspace.resolve() != root else ""
    pathspec = ["--", rel] if rel else []
    changes = Changes(root, _head(git))
    status = git.run(
        "status", "--porcelain=v1", "-z", "--untracked-files=all", SUBMODULES, *pathspec
    )
    staged = git.run("diff", "--cached", *DIFF_FLAGS, SUBMODULES, "-M", *pathspec)
    unstaged = (
        GitResult(0, "", "") if staged_only else git.run("diff", *DIFF_FLAGS, SUBMODULES, *pathspec)
    )
    for result in (status, staged, unstaged):
        if result.code != 0:
            raise ToolError(f"git failed in {root}: {result.err.strip() or result.code}")
    _parse_status(status.out, changes)
    return root, changes, staged.out, unstaged.out


def _listings(changes: Changes, staged_only: bool) -> list[str]:
    lines = _listing("Staged", [f"{s}: {p}" for s, p in changes.staged])
    if staged_only:
        hidden = len(changes.unstaged) + len(changes.untracked)
        if not changes.staged:
            lines.append("Nothing is staged.")
        if hidden:
            lines.append(f"({hidden} unstaged or untracked files not shown: staged_only=true)")
    else:
        lines += _listing("Unstaged", [f"{s}: {p}" for s, p in changes.unstaged])
        lines += _listing("Untracked", changes.untracked)
    return lines


class GetChangedFilesTool(BaseTool):
    name = "get_changed_files"

    @staticmethod
    def _staged_only(input: dict[str, Any]) -> bool:
        value = input.get("staged_only", False)
        if not isinstance(value, bool):
            raise ToolError("`staged_only` must be true or false (or left out).")
        return value

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        what = "staged changes" if self._staged_only(input) else "changed files"
        return Prepared(f"Getting {what}", f"Got {what}", paths=(ctx.workspace.resolve(),))

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        staged_only = self._staged_only(input)
        content = await asyncio.to_thread(collect, ctx.workspace, staged_only)
        return ToolResult(content)
