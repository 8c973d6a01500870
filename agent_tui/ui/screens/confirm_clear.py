"""Asked by /clear and /new when the conversation holds messages: clear it, or keep it."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label

from agent_tui.plural import plural
from agent_tui.ui.key_guard import GuardedModal, guard_notice


class ConfirmClearScreen(GuardedModal[bool]):
    """Dismisses with True to clear, False to keep. Keys typed on after /clear (the next message)
    wait for a pause before they answer (``key_guard``)."""

    CSS_PATH = "confirm_clear.tcss"
    BINDINGS = [
        Binding("y,enter", "answer(True)", "Clear"),
        Binding("n,escape", "answer(False)", "Keep"),
    ]

    def __init__(self, messages: int) -> None:
        super().__init__()
        self.messages = messages

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Clear the conversation ({plural(self.messages, 'message')})?")
            yield Label("/undo-clear brings it back.", id="hint")
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("y Clear", id="clear", variant="warning", compact=True)
                yield Button("n Keep", id="keep", compact=True)

    def action_answer(self, clear: bool) -> None:
        self.dismiss(clear)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "clear")
