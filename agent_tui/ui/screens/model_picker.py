"""``/model``: pick the model the session started with (``default``) or one of the configured
models (``[models.<alias>]`` in .agentrc)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from agent_tui.front.types import ModelConfig


class ModelPickerScreen(ModalScreen[str | None]):
    """Dismisses with the chosen alias, or None on Esc."""

    CSS_PATH = "model_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, models: dict[str, ModelConfig], current: ModelConfig) -> None:
        """``current`` is the running ModelConfig: the entry equal to it is marked."""
        super().__init__()
        self.models = models
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Pick a model — Enter to use, Esc to cancel", id="title")
            yield OptionList(
                *(
                    Option(
                        f"{alias}: {m.provider} {m.name}"
                        + ("  (current)" if m == self.current else ""),
                        id=alias,
                    )
                    for alias, m in self.models.items()
                )
            )

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)
