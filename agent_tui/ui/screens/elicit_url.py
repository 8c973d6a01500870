"""A server's URL-mode elicitation (a sign-in or payment page to visit): the URL is shown whole, and
opened in the browser (``webbrowser``, so ``$BROWSER`` is honoured) only when the user says so.

o opens it and answers accept; n declines; Esc cancels. Only http(s) URLs can be opened: anything
else (``file:``, ``javascript:``) is shown but the open choice is not offered.
"""

from __future__ import annotations

import asyncio
import webbrowser
from urllib.parse import urlsplit

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from agent_tui.front.types import ElicitAnswer
from agent_tui.text_safety import one_line, visible
from agent_tui.ui.key_guard import GuardedModal, guard_notice


def openable(url: str) -> bool:
    """Whether the URL may be opened: http or https with a host."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


class ElicitUrlScreen(GuardedModal[ElicitAnswer]):
    """Show a server's URL and ask before opening it. A server asks at any moment: ``o`` waits
    for a pause in typing (``key_guard``)."""

    CSS_PATH = "elicit_url.tcss"
    BINDINGS = [
        Binding("o", "open", "Open in browser"),
        Binding("n", "answer('decline')", "Decline"),
        Binding("escape", "answer('cancel')", "Cancel"),
    ]

    def __init__(self, server: str, message: str, url: str) -> None:
        super().__init__()
        self.server = server
        self.message = message
        self.url = url

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            title = f"Server {one_line(self.server)} asks you to open a page:"
            yield Label(title, id="title", markup=False)
            yield Static(visible(self.message), id="request", markup=False)
            # The whole URL (wrapped, never cut): it is what would be opened.
            yield Static(one_line(self.url), id="url", markup=False)
            if not openable(self.url):
                yield Static("Only http(s) pages can be opened.", markup=False)
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                if openable(self.url):
                    yield Button("o Open in browser", id="open", variant="success", compact=True)
                yield Button("n Decline", id="decline", variant="error", compact=True)

    async def action_open(self) -> None:
        if not openable(self.url):
            return
        # webbrowser may run a command ($BROWSER) and wait for it: off the event loop.
        await asyncio.to_thread(webbrowser.open, self.url)
        self.dismiss(ElicitAnswer("accept"))

    def action_answer(self, action: str) -> None:
        self.dismiss(ElicitAnswer("cancel" if action == "cancel" else "decline"))

    @on(Button.Pressed)
    async def _button(self, event: Button.Pressed) -> None:
        if event.button.id == "open":
            await self.action_open()
        else:
            self.action_answer("decline")
