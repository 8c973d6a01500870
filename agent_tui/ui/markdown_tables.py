"""Markdown tables: cells that wrap instead of being cut, and a table held back while its first
rows stream in.

Both renderers the app uses cut a cell that does not fit with an ellipsis: Rich's Markdown (a
finished answer) makes its columns ``overflow="ellipsis"``, and Textual's ``Markdown`` widget (a
streaming answer, notes, help) styles its ``MarkdownTableContent`` cells ``text-overflow:
ellipsis``. At 80 columns a table of config keys then showed ``timeou…``: the one word that
mattered. Rich's side is fixed here (``WrappingMarkdown``); Textual's in app.tcss, which sets the
cells' ``text-overflow`` to ``fold``.

A table is only a table once its delimiter row (``| --- | --- |``) is complete: until then its
header is a paragraph of raw ``| … |``. ``shown_length`` tells a streaming answer where to stop
so that paragraph is never drawn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown, MarkdownElement, TableElement
from rich.table import Table


class WrappingTableElement(TableElement):
    """Rich's Markdown table, with columns that fold long words onto the next line."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for renderable in super().__rich_console__(console, options):
            if isinstance(renderable, Table):
                for column in renderable.columns:
                    column.overflow = "fold"
            yield renderable


class WrappingMarkdown(Markdown):
    """Rich Markdown whose tables wrap their cells instead of cutting them."""

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "table_open": WrappingTableElement,
    }


def fenced_lines(text: str) -> Iterator[tuple[int, str, bool]]:
    """Each line of ``text`` (with its newline) as ``(offset, line, inside)``: ``inside`` is
    True when the line comes inside an open code fence (its closing line included)."""
    fence = ""  # the open fence's marker run, e.g. "```" or "~~~~"
    offset = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        yield offset, line, bool(fence)
        if not fence and stripped.startswith(("```", "~~~")):
            fence = stripped[: len(stripped) - len(stripped.lstrip(stripped[0]))]
        elif fence and stripped.startswith(fence) and not stripped.strip(fence[0]):
            fence = ""  # a closing fence: the same character, at least as many, nothing else
        offset += len(line)


def _is_row(line: str) -> bool:
    return line.lstrip(" ").startswith("|") and len(line) - len(line.lstrip(" ")) <= 3


def shown_length(text: str) -> int:
    """How much of a streaming ``text`` to show: all of it, unless it ends in what may become a
    table whose delimiter row has not arrived whole yet (held back from its header row)."""
    rows: list[tuple[int, str]] = []  # the run of table-like rows the text ends with
    for offset, line, inside in fenced_lines(text):
        rows = [*rows, (offset, line)] if not inside and _is_row(line) else []
    if not rows:
        return len(text)
    if len(rows) == 1:
        return rows[0][0]  # a header row, or the start of one
    delimiter = rows[1][1]
    if delimiter.endswith("\n") or set(delimiter.strip()) - set("|-: "):
        return len(text)  # complete (a table, or text the parser shows as such), or not one
    return rows[0][0]
