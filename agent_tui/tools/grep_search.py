"""grep_search: text or regex search over the workspace with ripgrep (pure-Python fallback)."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.plural import plural
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult
from agent_tui.tools.fs_args import optional_bool, optional_int, optional_str, require_str
from agent_tui.tools.fs_grep import GrepQuery, Match, SearchOutcome, python_search, rg_search
from agent_tui.tools.fs_walk import find_rg, folder_glob, glob_to_regex
from agent_tui.tools.rg_watch import RgStuck
from agent_tui.tools.search_roots import SearchScope, names_a_folder, scope_of

DEFAULT_RESULTS = 50
MAX_RESULTS = 500
TEXT_WIDTH = 200  # characters of a matching line shown


def _parse(input: Any, ctx: ToolContext) -> tuple[GrepQuery, SearchScope]:
    """The query, and where it searches: the workspace, or the extra root an absolute
    ``include_pattern`` names (``search_roots.py``)."""
    query = require_str(input, "query")
    if "\n" in query:
        raise ToolError("`query` must be a single line; search for one line of the text at a time.")
    scope = SearchScope(ctx.workspace.resolve(), "", outside=False)
    include = optional_str(input, "include_pattern")
    if include is not None:
        include = include.strip().removeprefix("./")
        if include.startswith("!"):
            raise ToolError("`include_pattern` selects files; excluding with '!' is not supported.")
        if names_a_folder(include):
            scope = scope_of(include, ctx)
            # The whole root: no glob (ripgrep's -g would override .gitignore).
            include = scope.glob if scope.glob not in ("", "**") else None
        else:
            include = folder_glob(include, scope.root)
    if include is not None:
        try:
            glob_to_regex(include)
        except ValueError as exc:
            raise ToolError(f"Invalid include_pattern {include!r}: {exc}.") from None
    query_ = GrepQuery(
        query=query,
        is_regexp=optional_bool(input, "is_regexp"),
        include=include,
        limit=optional_int(input, "max_results", maximum=MAX_RESULTS) or DEFAULT_RESULTS,
    )
    return query_, SearchScope(scope.root, include or "", scope.outside)


def _cut(text: str, locate: re.Pattern[str] | None) -> str:
    """Cut a long line to TEXT_WIDTH characters, keeping the match in view."""
    text = text.rstrip("\r\n")
    if len(text) <= TEXT_WIDTH:
        return text
    found = locate.search(text) if locate is not None else None
    start = 0 if found is None else max(found.start() - TEXT_WIDTH // 4, 0)
    piece = text[start : start + TEXT_WIDTH]
    return ("…" if start else "") + piece + ("…" if start + TEXT_WIDTH < len(text) else "")


def _locator(q: GrepQuery) -> re.Pattern[str] | None:
    flags = 0 if q.case_sensitive else re.IGNORECASE
    try:
        return re.compile(q.query if q.is_regexp else re.escape(q.query), flags)
    except re.error:
        return None  # a ripgrep-only regex: cut long lines from their start instead


def format_matches(q: GrepQuery, outcome: SearchOutcome, scope: SearchScope) -> str:
    """``path:line: text`` lines, sorted, with a header saying how many and whether capped
    (a file in an extra root named by its full path: ``scope.shown``)."""
    if not outcome.matches:
        hint = " Try is_regexp=false for a literal search." if q.is_regexp else ""
        where = f" in files matching `{scope.described()}`" if scope.glob or scope.outside else ""
        return f"No matches for `{q.query}`{where} (files ignored by .gitignore are skipped).{hint}"
    locate = _locator(q)
    matches: list[Match] = sorted(outcome.matches)[: q.limit]
    files = len({m[0] for m in matches})
    total = f"{len(outcome.matches)}+" if outcome.incomplete else str(len(outcome.matches))
    header = f"{total} match{'es' if total != '1' else ''}"
    if len(outcome.matches) > q.limit or outcome.incomplete:
        header += (
            f"; showing {len(matches)} in {plural(files, 'file')}. Narrow the query or set include_pattern "
            "to see the rest"
        )
    else:
        header += f" in {files} file{'s' if files != 1 else ''}"
    lines = [f"{scope.shown(path)}:{line}: {_cut(text, locate)}" for path, line, text in matches]
    if outcome.unreadable:
        lines.append(f"({plural(outcome.unreadable, 'file')} could not be read and were skipped.)")
    return header + ":\n" + "\n".join(lines)


class GrepSearchTool(BaseTool):
    """Search file contents."""

    name = "grep_search"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        q, scope = _parse(input, ctx)
        where = f" in `{scope.described()}`" if scope.glob or scope.outside else ""
        return Prepared(
            invocation_message=f"Searching for `{q.query}`{where}",
            past_tense_message=f"Searched for `{q.query}`{where}",
            paths=(scope.root,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        q, scope = _parse(input, ctx)
        root = scope.root
        rg = find_rg()
        # Collect more than shown so that sorting picks the first matches by path, not by which
        # file a ripgrep thread happened to finish first.
        collect = max(q.limit * 4, 1000)
        try:
            if rg is None:
                raise RgStuck("no ripgrep")
            outcome = await rg_search(rg, root, q, collect=collect)
        except RgStuck:  # none, or it waited on a FIFO: the Python search reads regular files only
            outcome = await asyncio.to_thread(python_search, root, q, collect=collect)
        return ToolResult(
            format_matches(q, outcome, scope),
            data={"count": len(outcome.matches), "incomplete": outcome.incomplete},
        )
