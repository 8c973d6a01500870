"""The transcript card of the provider's own web search (its query and sources), and of the sources
an answer cites.

Every title, URL and query is web text chosen by whoever wrote the page: shown one line each with
control characters made visible, as plain text (no Markup, no links the terminal would open).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from agent_tui import events as ev
from agent_tui.text_safety import one_line

MAX_SHOWN = 8  # sources listed on a card; the rest are counted
TITLE_CELLS = 60


def _source_line(number: int, source: ev.WebSource) -> Text:
    title = one_line(source.title)
    title = title if len(title) <= TITLE_CELLS else title[: TITLE_CELLS - 1] + "…"
    line = Text(f"[{number}] ", style="dim")
    if title:
        line.append(title + "  ")
    line.append(one_line(source.url), style="underline dim")
    return line


def card_text(event: ev.WebSearched | ev.AnswerCited) -> Text:
    """The card's lines: a head line, then a numbered line per source (at most MAX_SHOWN)."""
    if isinstance(event, ev.WebSearched):
        outcome = f"  ({event.outcome})"
        head = Text.assemble(("Searched the web ", "bold"), one_line(event.query), outcome)
    else:
        head = Text("Sources cited", style="bold")
    lines = [head]
    lines += [_source_line(n, s) for n, s in enumerate(event.sources[:MAX_SHOWN], 1)]
    if len(event.sources) > MAX_SHOWN:
        lines.append(Text(f"… and {len(event.sources) - MAX_SHOWN} more", style="dim"))
    return Text("\n").join(lines)


class WebSearchCard(Static):
    """``WebSearched`` or ``AnswerCited`` in the transcript."""

    DEFAULT_CSS = """
    WebSearchCard {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $accent;
        background: $boost;
    }
    """

    def __init__(self, event: ev.WebSearched | ev.AnswerCited) -> None:
        super().__init__(card_text(event), markup=False)
        self.event = event

    def record(self) -> Callable[[], Widget]:
        event = self.event
        return lambda: WebSearchCard(event)
