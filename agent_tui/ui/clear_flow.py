"""/clear and /new ask before wiping a conversation, and /undo-clear brings it back.

Claude Code's /clear neither asks nor offers a way back; one stray Enter then loses an hour's
context. Here a conversation with messages is cleared only after a yes, and the cleared messages
and transcript entries are kept for the session: /undo-clear swaps them with the current ones, so
undoing is itself undoable and nothing is ever dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widget import Widget

from agent_tui.conversation import Message
from agent_tui.plural import plural
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


@dataclass
class SavedConversation:
    """A cleared conversation: the agent's messages and the transcript's entries (as records)."""

    messages: list[Message]
    entries: list[Callable[[], Widget]]


class ClearFlow:
    """Carries out the ``clear`` / ``new`` and ``undo_clear`` command actions for ``app``."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.saved: SavedConversation | None = None

    def _take(self) -> SavedConversation:
        return SavedConversation(self.app.front.messages, self.app.transcript.records())

    async def clear(self) -> None:
        """Ask (when there are messages), then clear; run inside a worker (it awaits a dialog)."""
        from agent_tui.ui.screens.confirm_clear import ConfirmClearScreen

        app = self.app
        count = len(app.front.messages)
        if count and not await app.push_screen_wait(ConfirmClearScreen(count)):
            await app.transcript.add(Note("Kept the conversation."))
            return
        if count:
            self.saved = self._take()
        app.front.clear()
        await app.transcript.clear()
        if count:
            text = f"Cleared {plural(count, 'message')} — /undo-clear brings them back."
            await app.transcript.add(Note(text))

    async def undo(self) -> None:
        """Swap the last cleared conversation with the current one."""
        app = self.app
        if self.saved is None:
            await app.transcript.add(Note("Nothing to bring back: no conversation was cleared."))
            return
        saved, current = self.saved, self._take()
        self.saved = current if current.messages else None
        app.front.restore_messages(saved.messages)
        await app.transcript.restore(saved.entries)
        await app.transcript.add(Note(f"Brought back {plural(len(saved.messages), 'message')}."))
