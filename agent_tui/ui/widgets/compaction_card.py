"""The transcript card of a compaction: one line saying what happened, the summary folded inside."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget
from textual.widgets import Collapsible, Markdown

from agent_tui import events as ev
from agent_tui.front.types import compaction_note
from agent_tui.text_safety import visible, visible_markdown


class CompactionCard(Collapsible):
    """``ConversationCompacted`` in the transcript: collapsed; Enter or a click shows the summary.

    The summary is the model's text, shown with its control characters made visible.
    """

    DEFAULT_CSS = """
    CompactionCard {
        margin: 1 0 0 0;
        padding: 0;
        border: none;
        border-left: thick $secondary;
        background: $boost;
    }
    CompactionCard > CollapsibleTitle { color: $text-muted; padding: 0 1; }
    CompactionCard Markdown { margin: 0; padding: 0 1; }
    """

    def __init__(self, event: ev.ConversationCompacted) -> None:
        self.event = event
        super().__init__(
            Markdown(visible_markdown(event.summary)),
            title=visible(compaction_note(event)),
            collapsed=True,
        )

    def record(self) -> Callable[[], Widget]:
        event = self.event
        return lambda: CompactionCard(event)
