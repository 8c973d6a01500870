"""Asked by /undo and /rewind when files changed outside the agent since its last write to them:
overwrite them with the checkpoint, keep them (undo the rest), or cancel."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Label

from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui.key_guard import GuardedModal, guard_notice


class UndoConflictsScreen(GuardedModal[str | None]):
    """Dismisses with "overwrite", "keep", or None (cancel: nothing is changed). ``o`` overwrites
    the person's own changes: it waits for a pause in typing (``key_guard``)."""

    CSS_PATH = "undo_conflicts.tcss"
    BINDINGS = [
        Binding("o", "answer('overwrite')", "Overwrite"),
        Binding("k", "answer('keep')", "Keep them"),
        Binding("escape", "answer(None)", "Cancel"),
    ]

    def __init__(self, files: list[str]) -> None:
        super().__init__()
        self.files = files

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            count = plural(len(self.files), "file")
            yield Label(f"{count} changed outside the agent since its last write:")
            with VerticalScroll(id="files"):
                for path in self.files:
                    yield Label(f"  {one_line(path)}", markup=False)
            yield Label("Undoing would overwrite those changes.", id="hint")
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("o Overwrite", id="overwrite", variant="warning", compact=True)
                yield Button("k Keep them, undo the rest", id="keep", compact=True)
                yield Button("Esc Cancel", id="cancel", compact=True)

    def action_answer(self, answer: str | None) -> None:
        self.dismiss(answer)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(None if event.button.id == "cancel" else event.button.id)
