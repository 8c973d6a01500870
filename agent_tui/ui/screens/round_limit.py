"""Asked when a turn reaches the round limit: continue for more rounds, or stop here. It opens
mid-turn, maybe while the person types: its keys wait for a pause (``key_guard``)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label

from agent_tui.plural import plural
from agent_tui.ui.key_guard import GuardedModal, guard_notice


class RoundLimitScreen(GuardedModal[bool]):
    CSS_PATH = "round_limit.tcss"
    BINDINGS = [
        Binding("c", "answer(True)", "Continue"),
        Binding("s,escape", "answer(False)", "Stop"),
    ]

    def __init__(self, rounds: int) -> None:
        super().__init__()
        self.rounds = rounds

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(
                f"The agent has run {plural(self.rounds, 'round')} in this turn. Keep going?"
            )
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("c Continue", id="continue", variant="primary", compact=True)
                yield Button("s Stop", id="stop", compact=True)

    def action_answer(self, proceed: bool) -> None:
        self.dismiss(proceed)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "continue")
