"""An MCP server's elicitation request as a form: one widget per schema property.

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
from textual.suggester import Suggester
from textual.widget import Widget
from textual.widgets import Button, Checkbox, Input, Label, Select, SelectionList, Static

from agent_tui.front.types import ElicitAnswer
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice
from agent_tui.ui.prompt_focus import focus_now
from agent_tui.ui.widgets.elicit_fields import FieldSpec, check_choices, coerce_text

_INPUT_TYPES = {"integer": "integer", "number": "number"}


def _placeholder(spec: FieldSpec) -> str:
    """A hint of what to type: the format (email, date ...), or the number type and range."""
    if spec.schema.get("format"):
        return str(spec.schema["format"])
    if spec.kind in ("number", "integer"):
        low, high = spec.schema.get("minimum"), spec.schema.get("maximum")
        if low is not None and high is not None:
            return f"{spec.kind}, {low} to {high}"
        return spec.kind
    return "text"


def _field_widget(spec: FieldSpec, widget_id: str, suggester: Suggester | None = None) -> Widget:
    default = spec.default
    if spec.kind == "boolean":
        return Checkbox(one_line(spec.title), bool(default), id=widget_id, compact=True)
    if spec.kind == "enum":
        values = [value for _, value in spec.options]
        start = str(default) if default is not None and str(default) in values else Select.NULL
        # A required enum with no default starts blank, so the user must pick one.
        blank = not spec.required or start is Select.NULL
        labelled = [(one_line(label), value) for label, value in spec.options]
        return Select(labelled, value=start, allow_blank=blank, id=widget_id, compact=True)
    if spec.kind == "multi":
        chosen = {str(v) for v in default} if isinstance(default, list) else set()
        return SelectionList[str](
            *((one_line(label), value, value in chosen) for label, value in spec.options),
            id=widget_id,
            compact=True,
        )
    return Input(
        "" if default is None else str(default),
        placeholder=_placeholder(spec),
        type=_INPUT_TYPES.get(spec.kind, "text"),  # type: ignore[arg-type]  # a Literal
        suggester=suggester,
        id=widget_id,
        compact=True,
    )


class ElicitScreen(GuardedModal[ElicitAnswer]):
    """The form for one elicitation request (also used for a prompt command's missing arguments).

    A server asks at any moment: until the typing pauses (``key_guard``) no field is focused and
    Enter sends nothing, so a message being typed does not land in the form and go to the server.

    Args:
        server: the MCP server's name.
        message: what the server says it needs.
        fields: from ``parse_schema(requested_schema)``.
        title: the heading (default: "MCP server NAME asks:").
        suggesters: inline suggestions for text fields, by field name.
    """

    CSS_PATH = "elicit.tcss"
    BINDINGS = [
        Binding("escape", "answer('cancel')", "Cancel"),
        Binding("ctrl+s", "submit", "Submit"),
    ]

    def __init__(
        self,
        server: str,
        message: str,
        fields: list[FieldSpec],
        *,
        title: str = "",
        suggesters: dict[str, Suggester] | None = None,
    ) -> None:
        super().__init__()
        self.server = server
        self.message = message
        self.fields = fields
        # Everything here comes from the MCP server: control characters shown (text_safety).
        self.heading = one_line(title or f"MCP server {server} asks:")
        self.suggesters = suggesters or {}

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.heading, id="title", markup=False)
            yield Static(visible(self.message), id="message", markup=False)
            with VerticalScroll(id="fields"):
                for index, spec in enumerate(self.fields):
                    with Vertical(classes="field"):
                        if spec.kind != "boolean":
                            star = " *" if spec.required else ""
                            title = one_line(spec.title)
                            yield Label(f"{title}{star}", classes="field-title", markup=False)
                        if spec.description:
                            help_text = visible(spec.description)
                            yield Static(help_text, classes="field-help", markup=False)
                        suggester = self.suggesters.get(spec.name)
                        yield _field_widget(spec, f"field-{index}", suggester)
                        yield Label("", id=f"error-{index}", classes="field-error")
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("Submit", id="accept", variant="primary", compact=True)
                yield Button("Decline", id="decline", compact=True)
                yield Button("Cancel", id="cancel", compact=True)
            yield Label(
                "* required · Enter or Ctrl+S submits · Esc cancels",
                id="hint",
                classes="key-legend",
            )

    def keys_armed(self) -> None:
        if self.fields:  # not the scroll container: typing goes straight into the first field
            focus_now(self.query_one("#field-0"))

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
            error = self.query_one(f"#error-{index}", Label)
            error.update(problem)
            error.display = bool(problem)
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
