"""Tool results too big for one message: the start and end for the model, the whole in a file.

A 300 KB MCP answer used to reach the model whole, and a 10 MB one was dropped by the budget (the
model was told to run the tool again, which returned the same 10 MB). As terminal output already
is (``terminal_output.py``), every tool result over ``[tools] max_result_chars`` is cut to its
start and end, and the whole of it is written to ``<state dir>/tool-results/<workspace>/``. The
result says where, and ``read_file`` reads exactly those files (and no other file outside the
workspace) without asking, a page at a time.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.errors import ConfigError
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.paths import state_dir, workspace_dir_name
from agent_tui.state_files import private_dir, private_fd, prune_oldest
from agent_tui.tools.base import ToolResult

logger = logging.getLogger(__name__)

DEFAULT_MAX_CHARS = 40_000  # ~10k tokens: about one read_file page
KEEP_FILES = 200  # per workspace; older saved results are removed when a new one is saved
MAX_TOTAL_BYTES = 512 * 1024 * 1024
MAX_REINDENT_CHARS = 32 * 1024 * 1024  # larger JSON is saved as it came
LONG_LINE = 2000  # read_file shows at most this much of one line (read_file.MAX_LINE_CHARS)
_counter = itertools.count(1)
_UNSAFE = lazy_pattern(r"[^A-Za-z0-9_-]")


def max_result_chars(config: Any) -> int:
    """``[tools] max_result_chars`` (the default when unset)."""
    value = config.section("tools", "max_result_chars") if config is not None else None
    return int(value) if isinstance(value, int) else DEFAULT_MAX_CHARS


def results_dir(workspace: Path) -> Path:
    """Where the whole results of this workspace's tool calls are kept (not created here)."""
    return state_dir() / "tool-results" / workspace_dir_name(workspace)


def saved_result(workspace: Path, path: str) -> Path | None:
    """The saved result ``path`` names (with every link resolved), or None when it names anything
    else: only a regular file directly in this workspace's results folder counts."""
    try:
        folder = Path(os.path.realpath(results_dir(workspace)))
    except ConfigError:
        return None
    full = Path(os.path.realpath(Path(path).expanduser()))
    if full.parent != folder or not full.is_file():
        return None
    return full


def cap_result(result: ToolResult, workspace: Path, tool: str, limit: int) -> ToolResult:
    """``result`` itself when its text is within ``limit`` characters; else its start and end
    with a note saying where the whole of it was saved (or that it could not be)."""
    text = result.content
    if len(text) <= limit:
        return result
    saved_text = _readable(text)
    try:
        path: Path | None = _save(workspace, tool, saved_text)
    except (OSError, ConfigError) as exc:
        logger.warning("could not save a large result of %s: %s", tool, exc)
        path = None
    shown = _head_and_tail(text, limit * 3 // 10, limit // 10)
    if path is None:
        where = "It could not be saved; ask for less (a narrower query, fewer items)."
    else:
        lines = saved_text.count("\n") + 1
        where = (
            f"The whole result is saved in {path} ({lines:,} lines); read it in pages with "
            "read_file (path, start_line, end_line) instead of running the tool again."
        )
        longest = max(map(len, saved_text.split("\n")))
        if longest > LONG_LINE:
            where += (
                f" Its longest line has {longest:,} characters and read_file shows the first "
                f"{LONG_LINE:,} of a line."
            )
    note = (
        f"[agent-tui: this result has {len(text):,} characters, over the {limit:,}-character "
        f"limit for one tool result; its start and end are shown. {where}]"
    )
    return replace(result, content=f"{shown}\n\n{note}")


def _readable(text: str) -> str:
    """The text to save: a JSON document on one long line is saved indented, so that read_file
    (which cuts long lines) can page through it; anything else exactly as it came."""
    stripped = text.lstrip()
    if (
        not stripped.startswith(("{", "["))
        or len(text) > MAX_REINDENT_CHARS
        or "\n" in text.strip()
    ):
        return text
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _head_and_tail(text: str, head_chars: int, tail_chars: int) -> str:
    """The first and last characters of ``text``, cut at line ends when one is near."""
    head, tail = text[:head_chars], text[-tail_chars:] if tail_chars else ""
    cut = head.rfind("\n")
    if cut > len(head) // 2:
        head = head[: cut + 1]
    start = tail.find("\n")
    if 0 <= start < len(tail) // 2:
        tail = tail[start + 1 :]
    omitted = len(text) - len(head) - len(tail)
    return f"{head}\n[... {omitted:,} characters omitted here ...]\n{tail}"


def _save(workspace: Path, tool: str, text: str) -> Path:
    folder = private_dir(results_dir(workspace))
    _prune(folder, len(text.encode("utf-8", "surrogatepass")))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    label = _UNSAFE().sub("_", tool)[:64]
    path = folder / f"{stamp}-{os.getpid()}-{next(_counter)}-{label}.txt"
    with open(private_fd(path, append=False), "w", encoding="utf-8", errors="replace") as out:
        out.write(text)  # 0600: a tool's output may hold the user's code or data
    return path


def _prune(folder: Path, incoming: int) -> None:
    """Make room for one more file: at most KEEP_FILES and MAX_TOTAL_BYTES, oldest go first."""
    prune_oldest(folder, "*.txt", keep=KEEP_FILES, max_bytes=MAX_TOTAL_BYTES, incoming=incoming)
