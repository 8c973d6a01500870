"""Markdown tables wrap their cells instead of cutting them.

Both renderers the app uses cut a cell that does not fit with an ellipsis: Rich's Markdown (a
finished answer) makes its columns ``overflow="ellipsis"``, and Textual's ``Markdown`` widget (a
streaming answer, notes, help) styles its ``MarkdownTableContent`` cells ``text-overflow:
ellipsis``. At 80 columns a table of config keys then showed ``timeou…``: the one word that
mattered. Rich's side is fixed here (``WrappingMarkdown``); Textual's in app.tcss, which sets the
cells' ``text-overflow`` to ``fold``.
"""

from __future__ import annotations

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
