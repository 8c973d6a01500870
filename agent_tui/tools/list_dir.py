"""list_dir: a folder's entries, folders marked with ``/``, files with their sizes."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.fs_args import optional_str
from agent_tui.tools.fs_util import human_size

MAX_ENTRIES = 500
SKIPPED = {".git"}


def _target(input: Any, ctx: ToolContext) -> tuple[Path, str]:
    # `path` is required by the schema, but "" / missing is taken as the workspace root: a model
    # asking "what is here?" should get an answer, not an error.
    raw = optional_str(input, "path") or "."
    path = ctx.resolve(raw)
    return path, ctx.relative(path)


def _entry_line(entry: os.DirEntry[str]) -> tuple[bool, str]:
    """(is a folder, display line) for one entry."""
    try:
        if entry.is_symlink():
            target = os.readlink(entry.path)
            is_dir = entry.is_dir()  # follows the link
            return is_dir, f"{entry.name}{'/' if is_dir else ''} -> {target}"
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return False, f"{entry.name} (unreadable)"
    if stat.S_ISDIR(st.st_mode):
        return True, f"{entry.name}/"
    if stat.S_ISREG(st.st_mode):
        return False, f"{entry.name}  {human_size(st.st_size)}"
    return False, f"{entry.name} (special file)"


def list_entries(path: Path, shown: str) -> ToolResult:
    """List ``path`` (blocking). Folders first, then files, each sorted by name.

    Raises:
        ToolError: the path is missing, a file, or unreadable.
    """
    try:
        with os.scandir(path) as scan:
            entries = [e for e in scan if e.name not in SKIPPED]
    except FileNotFoundError:
        raise ToolError(
            f"{shown} does not exist. Use file_search to find the right path."
        ) from None
    except NotADirectoryError:
        raise ToolError(f"{shown} is a file, not a folder; use read_file to read it.") from None
    except PermissionError:
        raise ToolError(f"Permission denied listing {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot list {shown}: {exc.strerror or exc}.") from None
    rows = sorted((not is_dir, line.lower(), line) for is_dir, line in map(_entry_line, entries))
    if not rows:
        return ToolResult(f"{shown}/ is empty.", data={"count": 0})
    lines = [line for _, _, line in rows[:MAX_ENTRIES]]
    folders = sum(1 for not_dir, _, _ in rows if not not_dir)
    files = len(rows) - folders
    header = f"{shown}/: {folders} folder{'s' * (folders != 1)}, {files} file{'s' * (files != 1)}"
    if len(rows) > MAX_ENTRIES:
        header += (
            f"; showing the first {MAX_ENTRIES}. Use file_search with a glob to find specific files"
        )
    return ToolResult(header + "\n" + "\n".join(lines), data={"count": len(rows)})


class ListDirTool(BaseTool):
    """List a folder."""

    name = "list_dir"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        path, shown = _target(input, ctx)
        return Prepared(
            invocation_message=f"Listing {shown}",
            past_tense_message=f"Listed {shown}",
            paths=(path,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path, shown = _target(input, ctx)
        return await asyncio.to_thread(list_entries, path, shown)
