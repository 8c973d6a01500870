"""Asks for a ``${input:ID}`` value an MCP server's config needs before it can start.

A text field (hidden when the input is a password), or a list to pick from for a VS Code
``pickString``. Dismisses with the value (Enter), or None (Esc: the server does not start).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList, Static

from agent_tui.front.types import InputSpec
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice
from agent_tui.ui.prompt_focus import focus_now


class McpInputScreen(GuardedModal[str]):
    """The value of one input for server ``server``; the answer lasts for this session only.

    Asked as servers start, maybe while the person types the first message: the field is focused
    only after a pause in typing (``key_guard``), so the message does not become the value.
    """

    CSS_PATH = "mcp_input.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, server: str, spec: InputSpec) -> None:
        super().__init__()
        self.server = server
        self.spec = spec

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(
                f"MCP server {one_line(self.server)} needs a value to start:",
                id="title",
                markup=False,
            )
            # The description and options come from a config file: control characters shown.
            description = visible(self.spec.description or self.spec.id)
            yield Static(description, id="description", markup=False)
            if self.spec.options:
                shown = [one_line(option) for option in self.spec.options]
                options = OptionList(*shown, id="value", compact=True)
                if self.spec.default in self.spec.options:
                    options.highlighted = self.spec.options.index(self.spec.default)
                yield options
            else:
                yield Input(
                    self.spec.default or "",
                    placeholder=f"${{input:{self.spec.id}}}",
                    password=self.spec.password,
                    id="value",
                    compact=True,
                )
            yield guard_notice()
            yield Static(  # a Static wraps where a Label would be cut at the dialog's edge
                "Kept for this session only · Enter submits · Esc cancels (the server won't start)",
                id="hint",
                classes="key-legend",
                markup=False,
            )

    def keys_armed(self) -> None:
        focus_now(self.query_one("#value"))

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.spec.options[event.option_index])
