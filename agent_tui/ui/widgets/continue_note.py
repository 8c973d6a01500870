"""A note for an answer cut at ``max_tokens``, with a Continue button that asks for the rest."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Button, Static

from agent_tui.ui.widgets.notes import ErrorNote


class ContinueNote(ErrorNote):
    """Says the answer was cut; Continue sends ``prompt`` (the agent's continue request).

    It is an ErrorNote whose button says Continue: the app sends the prompt of either the same
    way (``ErrorNote.RetryRequested``), once the turn has ended.
    """

    DEFAULT_CSS = """
    ContinueNote { border-left: thick $warning; }
    ContinueNote > Static { color: $warning; }
    """

    def compose(self) -> ComposeResult:
        yield Static(self.message_text, markup=False)
        yield Button("Continue", variant="warning", compact=True, id="continue")

    def record(self) -> Callable[[], Widget]:
        message, prompt = self.message_text, self.prompt
        return lambda: ContinueNote(message, prompt)
