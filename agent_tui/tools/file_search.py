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
from agent_tui.tools.search_roots import SearchScope, names_a_folder, scope_of

DEFAULT_RESULTS = 100
MAX_RESULTS = 1000
_GLOB_CHARS = re.compile(r"[*?\[{]")


def _scope(input: Any, ctx: ToolContext) -> SearchScope:
    """Where the search runs and its glob: the workspace, or the extra root an absolute glob
    names (``search_roots.py``)."""
    pattern = require_str(input, "pattern").strip()
    root = ctx.workspace.resolve()
    if names_a_folder(pattern):
        scope = scope_of(pattern, ctx)
        pattern = scope.glob or "**"
    else:
        scope = SearchScope(root, "", outside=False)
        pattern = folder_glob(pattern.removeprefix("./"), root)
    try:
        glob_to_regex(pattern)
    except ValueError as exc:
        raise ToolError(f"Invalid glob {pattern!r}: {exc}.") from None
    return SearchScope(scope.root, pattern, scope.outside)


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
        scope = _scope(input, ctx)
        optional_int(input, "max_results", maximum=MAX_RESULTS)
        return Prepared(
            invocation_message=f"Searching for files matching `{scope.described()}`",
            past_tense_message=f"Searched for files matching `{scope.described()}`",
            paths=(scope.root,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        scope = _scope(input, ctx)
        limit = optional_int(input, "max_results", maximum=MAX_RESULTS) or DEFAULT_RESULTS
        pattern, root = scope.glob, scope.root
        matches = await asyncio.to_thread(search_files, root, pattern)
        note = ""
        if not matches and not _GLOB_CHARS.search(pattern):
            # A bare name ("parser") is usually meant as part of a file name.
            loose = f"*{pattern}*"
            matches = await asyncio.to_thread(search_files, root, loose)
            if matches:
                note = f"No file is named exactly {pattern!r}; searched for `{loose}` instead.\n"
                pattern = loose
        shown = SearchScope(root, pattern, scope.outside).described()
        if not matches:
            return ToolResult(
                f"No files match `{shown}` (ignored files such as those in .gitignore are "
                "skipped). Try a broader glob, e.g. **/*name*.",
                data={"count": 0},
            )
        header = f"{len(matches)} file{'s' if len(matches) != 1 else ''} match `{shown}`"
        if len(matches) > limit:
            header += f"; showing the first {limit} (sorted). Narrow the pattern to see others"
        return ToolResult(
            f"{note}{header}:\n" + "\n".join(scope.shown(path) for path in matches[:limit]),
            data={"count": len(matches), "truncated": len(matches) > limit},
        )
