"""``/copy pick``: choose an answer or code block to copy, with the keyboard."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.text_safety import visible


class CopyPickerScreen(ModalScreen[int | None]):
    """Dismisses with the index of the chosen entry, or None on Esc."""

    CSS_PATH = "copy_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, entries: list[Any]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Copy — Enter copies, Esc cancels (newest first)", id="title")
            yield OptionList(
                *(
                    Option(f"{n}. {visible(entry.label)}", id=str(n - 1))
                    for n, entry in enumerate(self.entries, 1)
                )
            )

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(int(event.option.id or 0))
