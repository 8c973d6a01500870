"""Type-ahead while a turn runs: Enter queues the message, shown above the prompt
and sent when the turn ends; Alt+Enter sends it now as steering (``Agent.steer``), which the
model reads after the current round's tool results. Up on an empty prompt takes the last queued
message back into the input, to edit it or to clear it away.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static
from textual.worker import WorkerState

from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


class QueuedMessages(Static):
    """The queued messages, one line each, above the prompt; hidden while there are none."""

    DEFAULT_CSS = """
    QueuedMessages { height: auto; max-height: 6; padding: 0 1; color: $text-muted; display: none; }
    QueuedMessages.-shown { display: block; }
    """

    def show_queued(self, texts: list[str]) -> None:
        lines = Text()
        for n, text in enumerate(texts):
            first = text.splitlines()[0] if text else ""
            more = " …" if len(text.splitlines()) > 1 else ""
            # Text, not markup: a message may hold "[".
            lines.append(("\n" if n else "") + f"⏳ queued: {first}{more}")
        if texts:
            lines.append("   (↑ on an empty prompt edits the last)", style="dim")
        self.update(lines)
        self.set_class(bool(texts), "-shown")


class QueueFlow:
    """The messages typed while a turn runs; the app calls in, this sets the widgets."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.queued: list[str] = []

    def add(self, text: str) -> None:
        self.queued.append(text)
        self._show()

    def requeue(self, text: str) -> None:
        """Put ``text`` back at the head of the queue (another turn started first)."""
        self.queued.insert(0, text)
        self._show()

    def take_last(self) -> str | None:
        """The last queued message, removed from the queue (Up on an empty prompt)."""
        if not self.queued:
            return None
        text = self.queued.pop()
        self._show()
        return text

    async def steer(self, text: str) -> None:
        """Send ``text`` to the running turn now."""
        self.app.front.steer(text)
        await self.app.transcript.add(Note(f"↳ steering (after the current tool results): {text}"))

    def turn_ended(self, state: WorkerState) -> None:
        """A turn's worker stopped: send the next queued message, or (cancelled) give them back."""
        # Steering no round took (the model answered first) goes first, as the next prompt.
        self.queued[:0] = self.app.front.take_steering()
        if not self.queued:
            return
        if state == WorkerState.CANCELLED:
            # Esc stops the work the user asked for: nothing is sent on its own; the messages
            # come back into the prompt to send or drop.
            prompt = self.app.prompt_input
            prompt.load_text("\n\n".join([*self.queued, *([prompt.text] if prompt.text else [])]))
            self.queued.clear()
            self._show()
            return
        text = self.queued.pop(0)
        self._show()
        self.app.call_later(self.app.submit_queued, text)

    def _show(self) -> None:
        self.app.query_one(QueuedMessages).show_queued(self.queued)
        self.app.prompt_input.has_queued = bool(self.queued)
        self.app.status.queued = len(self.queued)
