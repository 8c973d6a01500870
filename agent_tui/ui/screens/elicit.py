"""An MCP server's elicitation request as a form (issue 7 §6): one widget per schema property.

Strings and numbers are Inputs (checked on submit: type, range, length, format), booleans
Checkboxes, single-select enums Selects, multi-select enums SelectionLists. Required fields carry
a ``*``. Dismisses with an ``ElicitAnswer``: accept (with the content), decline, or cancel (Esc).
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, SelectionList, Static

from agent_tui.mcp.types import ElicitAnswer
from agent_tui.ui.widgets.elicit_fields import FieldSpec, check_choices, coerce_text

_INPUT_TYPES = {"integer": "integer", "number": "number"}


def _field_widget(spec: FieldSpec, widget_id: str) -> Widget:
    default = spec.default
    if spec.kind == "boolean":
        return Checkbox(spec.title, bool(default), id=widget_id)
    if spec.kind == "enum":
        values = [value for _, value in spec.options]
        start = str(default) if default is not None and str(default) in values else Select.NULL
        return Select(
            spec.options, value=start, allow_blank=not spec.required or start is Select.NULL,
            id=widget_id,
        )  # fmt: skip
    if spec.kind == "multi":
        chosen = {str(v) for v in default} if isinstance(default, list) else set()
        return SelectionList[str](
            *((label, value, value in chosen) for label, value in spec.options), id=widget_id
        )
    return Input(
        "" if default is None else str(default),
        placeholder=str(spec.schema.get("format") or spec.kind),
        type=_INPUT_TYPES.get(spec.kind, "text"),  # type: ignore[arg-type]  # a Literal
        id=widget_id,
    )


class ElicitScreen(ModalScreen[ElicitAnswer]):
    """The form for one elicitation request.

    Args:
        server: the MCP server's name.
        message: what the server says it needs.
        fields: from ``parse_schema(requested_schema)``.
    """

    CSS_PATH = "elicit.tcss"
    BINDINGS = [
        Binding("escape", "answer('cancel')", "Cancel"),
        Binding("ctrl+s", "submit", "Submit"),
    ]

    def __init__(self, server: str, message: str, fields: list[FieldSpec]) -> None:
        super().__init__()
        self.server = server
        self.message = message
        self.fields = fields

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"MCP server [b]{self.server}[/b] asks:", id="title")
            yield Static(self.message, id="message", markup=False)
            with VerticalScroll(id="fields"):
                for index, spec in enumerate(self.fields):
                    with Vertical(classes="field"):
                        if spec.kind != "boolean":
                            star = " *" if spec.required else ""
                            yield Label(f"{spec.title}{star}", classes="field-title", markup=False)
                        if spec.description:
                            yield Static(spec.description, classes="field-help", markup=False)
                        yield _field_widget(spec, f"field-{index}")
                        yield Label("", id=f"error-{index}", classes="field-error")
            with Horizontal(id="buttons"):
                yield Button("Submit", id="accept", variant="primary", compact=True)
                yield Button("Decline", id="decline", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Label("* required · Enter or Ctrl+S submits · Esc cancels", id="hint")

    def collect(self) -> tuple[dict[str, Any], int]:
        """The form's content and how many fields have a problem (shown under each field)."""
        content: dict[str, Any] = {}
        problems = 0
        for index, spec in enumerate(self.fields):
            widget = self.query_one(f"#field-{index}")
            value: Any = None
            problem = ""
            if isinstance(widget, Checkbox):
                value = widget.value
            elif isinstance(widget, Select):
                value = None if widget.is_blank() else widget.value
                problem = "required" if value is None and spec.required else ""
            elif isinstance(widget, SelectionList):
                value = list(widget.selected) or None
                problem = check_choices(spec, value or [])
            elif isinstance(widget, Input):
                value, problem = coerce_text(spec, widget.value)
            self.query_one(f"#error-{index}", Label).update(problem)
            if problem:
                problems += 1
            elif value is not None:
                content[spec.name] = value
        return content, problems

    def action_submit(self) -> None:
        content, problems = self.collect()
        if problems:
            self.notify(f"{problems} field(s) need attention.", severity="warning")
            return
        self.dismiss(ElicitAnswer("accept", content))

    def action_answer(self, action: str) -> None:
        self.dismiss(ElicitAnswer("cancel" if action == "cancel" else "decline"))

    @on(Input.Submitted)
    def _enter(self) -> None:
        self.action_submit()

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        if event.button.id == "accept":
            self.action_submit()
        else:
            self.action_answer(str(event.button.id))
