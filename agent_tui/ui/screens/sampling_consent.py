"""Asked before an MCP server's first sampling request: may it use the model? (issue 7 §6)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from agent_tui.mcp.types import SamplingRequest

PREVIEW_LINES = 6


def request_preview(request: SamplingRequest, max_lines: int = PREVIEW_LINES) -> str:
    """The first lines of what the server wants the model to answer (system prompt, messages)."""
    lines: list[str] = []
    if request.system:
        lines.append(f"system: {request.system}")
    for message in request.messages:
        lines.extend(f"{message['role']}: {line}" for line in message["content"].splitlines())
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"… ({len(lines) - max_lines} more lines)"]
    lines.append(f"(up to {request.max_tokens} tokens)")
    return "\n".join(lines)


class SamplingConsentScreen(ModalScreen[bool]):
    """Allow (y) or deny (n, Esc) a server's use of the model for this session."""

    CSS_PATH = "sampling_consent.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Allow"),
        Binding("n,escape", "answer(False)", "Deny"),
    ]

    def __init__(self, server: str, request: SamplingRequest) -> None:
        super().__init__()
        self.server = server
        self.request = request

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Server {self.server} wants to use the model:", id="title", markup=False)
            yield Static(request_preview(self.request), id="request", markup=False)
            yield Label("Your answer holds for this server until you quit.")
            with Horizontal(id="buttons"):
                yield Button("y Allow", id="allow", variant="success", compact=True)
                yield Button("n Deny", id="deny", variant="error", compact=True)

    def action_answer(self, allow: bool) -> None:
        self.dismiss(allow)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "allow")
