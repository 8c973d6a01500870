"""Asked before an MCP server uses the model (sampling), with the tool approvals' keys: the answer
is remembered like a grant (y this request, s session, w workspace, a always; n/Esc deny)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from agent_tui.front.types import Decision, SamplingRequest, Scope
from agent_tui.plural import plural
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice
from agent_tui.ui.screens.approval import BUTTONS

PREVIEW_LINES = 6


def request_preview(request: SamplingRequest, max_lines: int = PREVIEW_LINES) -> str:
    """The first lines of what the server wants the model to answer (system prompt, messages)."""
    lines: list[str] = []
    if request.system:
        lines.append(f"system: {request.system}")
    for message in request.messages:
        lines.extend(f"{message['role']}: {line}" for line in message["content"].splitlines())
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… ({plural(len(lines) - max_lines, 'more line')})"]
    lines.append(f"(up to {plural(request.max_tokens, 'token')})")
    return visible("\n".join(lines))  # the server's text: control characters shown


class SamplingConsentScreen(GuardedModal[Decision]):
    """Allow a server's use of the model once, for the session, the workspace or always; or deny
    it for the rest of the session. Its keys wait for a pause in typing (``key_guard``)."""

    CSS_PATH = "sampling_consent.tcss"
    BINDINGS = [
        Binding("y", "allow('once')", "Allow this request"),
        Binding("s", "allow('session')", "Allow for session"),
        Binding("w", "allow('workspace')", "Allow for workspace"),
        Binding("a", "allow('always')", "Always allow"),
        Binding("n,escape", "deny", "Deny"),
    ]

    def __init__(self, server: str, request: SamplingRequest) -> None:
        super().__init__()
        self.server = server
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = f"Server {one_line(self.server)} wants to use the model:"
            yield Label(title, id="title", markup=False)
            yield Static(request_preview(self.request), id="request", markup=False)
            yield Static(
                "y allows this request; s, w and a remember it like a tool grant (/approvals). "
                "A deny holds until you quit.",
                markup=False,
            )
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                for button_id, key, label, variant in BUTTONS:
                    if button_id != "edit":
                        yield Button(f"{key} {label}", id=button_id, variant=variant, compact=True)

    def action_allow(self, scope: str) -> None:
        self.dismiss(Decision(allow=True, scope=Scope(scope)))

    def action_deny(self) -> None:
        self.dismiss(Decision(allow=False))

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        if event.button.id == "deny":
            self.action_deny()
        elif event.button.id is not None:
            self.action_allow(event.button.id)
