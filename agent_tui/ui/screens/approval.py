"""The approval question (DESIGN §5): one key per answer, a reason after a deny, JSON edit.

Dismisses with a ``Decision``; the app sets it on ``ApprovalRequested.decision``.

The dialog never cuts what is approved: the call (command, diff, arguments) is shown whole and
wrapped in a body that scrolls (↑/↓, PgUp/PgDn), while the title and the key row are pinned to the
dialog's top and bottom, so the answer keys stay on screen at any size down to 80×24. A compound
command line lists each of its parts with the rule or grant that allows it (``approval_body``).

It may open while the person is typing a message: its keys wait for a pause in typing, the keys
before go to the prompt (``key_guard``), and nothing is focused, so Enter alone allows nothing.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, Input, Label, Static, TextArea

from agent_tui.events import ApprovalRequested
from agent_tui.front.types import (
    NARROW_KEY,
    NETWORK_GRANT,
    OUTSIDE_GRANT,
    CommandPart,
    Decision,
    Scope,
    grant_choice,
    input_problem,
)
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice, hold_unless_armed
from agent_tui.ui.key_handover import KeyHandover
from agent_tui.ui.screens.approval_body import block_widgets, parts_text

PATTERN_TOOLS = {"run_in_terminal", "fetch_webpage", NETWORK_GRANT, OUTSIDE_GRANT}
ButtonVariant = Literal["default", "primary", "success", "warning", "error"]
BUTTONS: tuple[
    tuple[str, str, str, ButtonVariant], ...
] = (  # id (Scope value or action), key, label
    ("once", "y", "Allow once", "success"),
    ("session", "s", "Session", "default"),
    ("workspace", "w", "Workspace", "default"),
    ("always", "a", "Always", "default"),
    ("edit", "e", "Edit", "default"),
    ("deny", "n", "Deny", "error"),
)


def validate_edit(text: str, schema: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str]:
    """Parse and check the edited input (the same check as the headless prompt's ``e``).

    Returns:
        (input, "") when it is a JSON object matching ``schema``; (None, what is wrong) otherwise.
    """
    problem = input_problem(text, schema)
    if problem is not None:
        return None, f"Not accepted: {problem}"
    value: dict[str, Any] = json.loads(text)
    return value, ""


def confirmation_markdown(event: ApprovalRequested) -> str:
    confirmation = event.prepared.confirmation
    if confirmation is not None and confirmation.message:
        return confirmation.message
    body = json.dumps(event.input, indent=2, ensure_ascii=False)
    return f"{event.prepared.invocation_message}\n\n```json\n{body}\n```"


FIELD_KEYS = {"e": "edit", "n": "deny"}  # keys that open a text field (the bindings' keys)


class ApprovalScreen(GuardedModal[Decision]):
    CSS_PATH = "approval.tcss"
    BINDINGS = [
        Binding("y", "allow('once')", "Allow once"),
        Binding("s", "allow('session')", "Allow for session"),
        Binding("w", "allow('workspace')", "Allow for workspace"),
        Binding("a", "allow('always')", "Always allow"),
        Binding("e", "edit", "Edit input"),
        Binding(NARROW_KEY, "narrow", "s/w/a: only this exact command", show=False),
        Binding("n", "deny", "Deny"),
        Binding("escape", "escape", "Deny / back"),
        Binding("ctrl+s", "save_edit", "Allow edited input", show=False),
        Binding("up", "scroll_body(-1)", "Scroll up", show=False),
        Binding("down", "scroll_body(1)", "Scroll down", show=False),
        Binding("pageup", "scroll_body(-10)", "Page up", show=False),
        Binding("pagedown", "scroll_body(10)", "Page down", show=False),
    ]

    def __init__(
        self,
        event: ApprovalRequested,
        schema: dict[str, Any] | None = None,
        parts: list[CommandPart] | None = None,
    ) -> None:
        """
        Args:
            event: the question.
            schema: the tool's input schema, to check an edited input.
            parts: for a terminal call, its sub-commands and what allows each
                (``ApprovalEngine.command_parts``); None otherwise.
        """
        super().__init__()
        self.event = event
        self.schema = schema
        self.parts = parts
        self.mode = "choose"  # choose | reason | edit
        self.narrow = False  # s / w / a grant the exact command instead of the suggestion
        self.handover: KeyHandover | None = None  # keys typed right after e / n: for the field

    def compose(self) -> ComposeResult:
        event = self.event
        confirmation = event.prepared.confirmation
        title = confirmation.title if confirmation else f"Allow {event.name}?"
        with Vertical(id="dialog"):
            # Static, not Label: a long title wraps instead of being cut at the edge.
            yield Static(one_line(title), id="title", markup=False)
            with VerticalScroll(id="message"):
                # What would run (the command, the diff), the parts of a command line under it,
                # and last why it asks (the reason quotes a sub-command, which may be long).
                blocks = block_widgets(confirmation_markdown(event))
                parts = parts_text(self.parts) if event.name == "run_in_terminal" else None
                if parts is not None:
                    code = next((n for n, b in enumerate(blocks) if b.has_class("code")), 0)
                    blocks.insert(code + 1, Static(parts, id="parts"))
                yield from blocks
                yield Static(visible(event.verdict.reason), id="why", markup=False)
            with Vertical(id="keys"):
                if event.suggested_pattern and event.name in PATTERN_TOOLS:
                    yield Static(visible(self._grant()[1]), id="pattern", markup=False)
                yield guard_notice()
                with Horizontal(id="buttons", classes="key-legend"):
                    for button_id, key, label, variant in BUTTONS:
                        yield Button(f"{key} {label}", id=button_id, variant=variant, compact=True)
                with Vertical(id="reason-box"):
                    yield Label("Why? (optional, sent to the model) — Enter to deny, Esc to skip")
                    # Not select_on_focus: keys typed before the focus came are kept (key_handover).
                    yield Input(placeholder="reason", id="reason", select_on_focus=False)
                with Vertical(id="edit-box"):
                    yield Label("Edit the input (JSON) — Ctrl+S to allow, Esc to go back")
                    yield TextArea(json.dumps(event.input, indent=2), id="editor", soft_wrap=True)
                    yield Static("", id="edit-error", markup=False)

    def on_key(self, event: events.Key) -> None:
        # e and n open a text field: run here, in the order typed, so that the keys typed right
        # after them go into the field (key_handover), not to the bindings.
        if self.handover is not None and self.handover.take(event):
            return
        if hold_unless_armed(self, self.key_guard, event):
            return
        action = FIELD_KEYS.get(event.key)
        if action and self.mode == "choose" and self.check_action(action, ()):
            event.stop()
            event.prevent_default()
            self.action_edit() if action == "edit" else self.action_deny()

    def on_idle(self) -> None:
        if self.handover is not None:
            self.handover.idle()

    def action_scroll_body(self, lines: int) -> None:
        self.query_one("#message", VerticalScroll).scroll_relative(y=lines, animate=False)

    def _set_mode(self, mode: str) -> None:
        self.mode = mode
        self.handover = None  # a field's keys end with its mode
        self.set_class(mode == "reason", "-reason")
        self.set_class(mode == "edit", "-edit")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While typing a reason or JSON, letters are text, not answers.
        if self.mode != "choose" and action in ("allow", "edit", "deny", "narrow"):
            return False
        if action == "edit" and self.event.name in (NETWORK_GRANT, OUTSIDE_GRANT):
            return False  # the sandbox's questions have no input to edit: the command already ran
        return True

    def _grant(self) -> tuple[str | None, str]:
        event = self.event
        return grant_choice(
            event.suggested_pattern, event.exact_pattern, event.name, narrow=self.narrow
        )

    def action_narrow(self) -> None:
        if not self.query("#pattern"):
            return  # no pattern line: the grant covers the whole tool, nothing to narrow
        self.narrow = not self.narrow
        self.query_one("#pattern", Static).update(visible(self._grant()[1]))

    def action_allow(self, scope: str) -> None:
        pattern = self._grant()[0] if scope != "once" else None
        self.dismiss(Decision(allow=True, scope=Scope(scope), pattern=pattern))

    def action_deny(self) -> None:
        self._set_mode("reason")
        self.handover = KeyHandover(self.query_one("#reason", Input))

    def action_edit(self) -> None:
        self._set_mode("edit")
        self.handover = KeyHandover(self.query_one("#editor", TextArea))

    def action_escape(self) -> None:
        if self.mode == "edit":
            self._set_mode("choose")
            self.query_one("#edit", Button).focus()
        elif self.mode == "reason":
            self.dismiss(Decision(allow=False))
        else:
            self.action_deny()

    def action_save_edit(self) -> None:
        if self.mode != "edit":
            return
        value, problem = validate_edit(self.query_one("#editor", TextArea).text, self.schema)
        error = self.query_one("#edit-error", Static)
        error.update(problem)
        if value is not None:
            self.dismiss(Decision(allow=True, scope=Scope.ONCE, edited_input=value))

    @on(Input.Submitted, "#reason")
    def _reason_given(self, event: Input.Submitted) -> None:
        self.dismiss(Decision(allow=False, reason=event.value.strip()))

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button in ("once", "session", "workspace", "always"):
            self.action_allow(button)
        elif button == "edit":
            self.action_edit()
        elif button == "deny":
            self.action_deny()
