"""file_search: workspace files matching a glob, honouring .gitignore, sorted and capped."""

from __future__ import annotations

import asyncio
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.key_env import child_environ
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.fs_args import optional_int, require_str
from agent_tui.tools.fs_walk import find_rg, folder_glob, glob_to_regex, rg_base_args, walk_files
from agent_tui.tools.rg_watch import POLL_S, waiting_on_fifo

DEFAULT_RESULTS = 100
MAX_RESULTS = 1000
_GLOB_CHARS = re.compile(r"[*?\[{]")


def _pattern(input: Any, ctx: ToolContext) -> str:
    pattern = require_str(input, "pattern").strip()
    root = str(ctx.workspace.resolve())
    if pattern.startswith(root + "/"):
        pattern = pattern[len(root) + 1 :]  # an absolute path inside the workspace
    pattern = pattern.removeprefix("./")
    if pattern.startswith("/") or ".." in Path(pattern).parts:
        raise ToolError(
            f"`pattern` {pattern!r} points outside the workspace; give a glob relative to the "
            "workspace root, e.g. **/*.py or src/**/test_*.py."
        )
    pattern = folder_glob(pattern, ctx.workspace.resolve())
    try:
        glob_to_regex(pattern)
    except ValueError as exc:
        raise ToolError(f"Invalid glob {pattern!r}: {exc}.") from None
    return pattern


def list_files(workspace: Path) -> list[str]:
    """Every non-ignored file in the workspace (relative POSIX paths), via rg or the fallback."""
    rg = find_rg()
    if rg is None:
        return list(walk_files(workspace))
    with tempfile.TemporaryFile() as out:  # a file, not a pipe: nothing to drain while polling
        proc = subprocess.Popen(
            [*rg_base_args(rg), "--files", "--null"],
            cwd=workspace,
            env=child_environ(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.DEVNULL,
        )
        seen = 0
        while proc.poll() is None:
            try:
                proc.wait(POLL_S)
            except subprocess.TimeoutExpired:
                seen = seen + 1 if waiting_on_fifo(proc.pid) else 0
                if seen >= 2:  # stuck opening a named pipe (rg_watch.py): list in Python
                    proc.kill()
                    proc.wait()
                    return list(walk_files(workspace))
        out.seek(0)
        listed = out.read()
    # Exit 1 = no files; 2 = some folders unreadable (the rest is still listed).
    return [p.decode("utf-8", "surrogateescape") for p in listed.split(b"\0") if p]


def search_files(workspace: Path, pattern: str) -> list[str]:
    """Sorted workspace files whose path matches ``pattern`` (case-insensitively)."""
    regex = re.compile(glob_to_regex(pattern).pattern, re.IGNORECASE | re.DOTALL)
    return sorted(path for path in list_files(workspace) if regex.match(path))


class FileSearchTool(BaseTool):
    """Find files by glob."""

    name = "file_search"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        pattern = _pattern(input, ctx)
        optional_int(input, "max_results", maximum=MAX_RESULTS)
        return Prepared(
            invocation_message=f"Searching for files matching `{pattern}`",
            past_tense_message=f"Searched for files matching `{pattern}`",
            paths=(ctx.workspace.resolve(),),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        pattern = _pattern(input, ctx)
        limit = optional_int(input, "max_results", maximum=MAX_RESULTS) or DEFAULT_RESULTS
        root = ctx.workspace.resolve()
        matches = await asyncio.to_thread(search_files, root, pattern)
        note = ""
        if not matches and not _GLOB_CHARS.search(pattern):
            # A bare name ("parser") is usually meant as part of a file name.
            loose = f"*{pattern}*"
            matches = await asyncio.to_thread(search_files, root, loose)
            if matches:
                note = f"No file is named exactly {pattern!r}; searched for `{loose}` instead.\n"
                pattern = loose
        if not matches:
            return ToolResult(
                f"No files match `{pattern}` (ignored files such as those in .gitignore are "
                "skipped). Try a broader glob, e.g. **/*name*.",
                data={"count": 0},
            )
        shown = matches[:limit]
        header = f"{len(matches)} file{'s' if len(matches) != 1 else ''} match `{pattern}`"
        if len(matches) > limit:
            header += f"; showing the first {limit} (sorted). Narrow the pattern to see others"
        return ToolResult(
            f"{note}{header}:\n" + "\n".join(shown),
            data={"count": len(matches), "truncated": len(matches) > limit},
        )
