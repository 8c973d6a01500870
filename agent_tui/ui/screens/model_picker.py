"""``/model``: pick the model the session started with (``default``), one of the configured
models (``[models.<alias>]`` in .agentrc), or one the provider lists (asked when the picker opens;
the aliases are there at once)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.plural import plural
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from agent_tui.front.types import ModelConfig

SERVED = "served:"  # the id prefix of a model the provider listed (an alias's id is its name)


class ModelPickerScreen(ModalScreen[str | None]):
    """Dismisses with the chosen alias or model name, or None on Esc."""

    CSS_PATH = "model_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self,
        models: dict[str, ModelConfig],
        current: ModelConfig,
        served: Callable[[], Awaitable[list[str] | None]] | None = None,
    ) -> None:
        """``current`` is the running ModelConfig: the entry equal to it is marked. ``served``
        asks the provider for the models it lists (None: not asked)."""
        super().__init__()
        self.models = models
        self.current = current
        self.served = served

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
            yield Label("", id="served")

    def on_mount(self) -> None:
        if self.served is not None:
            self.query_one("#served", Label).update("Asking the provider for its models…")
            self.run_worker(self._add_served(self.served), exclusive=True)

    async def _add_served(self, served: Callable[[], Awaitable[list[str] | None]]) -> None:
        names = await served()
        status = self.query_one("#served", Label)
        if not names:
            status.update("The provider lists no models; /model NAME takes any name.")
            return
        options = self.query_one(OptionList)
        options.add_option(Option(f"Served by {self.current.provider}:", disabled=True))
        for name in names:
            mark = "  (current)" if name == self.current.name else ""
            options.add_option(Option(one_line(name) + mark, id=SERVED + name))
        status.update(f"{plural(len(names), 'model')} served; /model NAME takes any name.")

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss((event.option.id or "").removeprefix(SERVED) or None)
