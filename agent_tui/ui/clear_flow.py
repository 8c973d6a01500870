"""/clear and /new ask before wiping a conversation, start a new session, and /undo-clear brings
the old one back.

Claude Code's /clear neither asks nor offers a way back; one stray Enter then loses an hour's
context. Here a conversation with messages is cleared only after a yes, and it stays a session of
its own: its file is left as it was (``--resume ID`` and ``/resume`` list it) and the conversation
goes on in a new session, whose file appears with its first turn. Within the run, /undo-clear swaps
the two back (messages, transcript and session file), so undoing is itself undoable and nothing is
ever dropped. After a restart there is nothing to swap with: the cleared session is in /resume.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widget import Widget

from agent_tui.plural import plural
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.front.door import SetAside
    from agent_tui.ui.app import AgentApp


@dataclass
class SavedConversation:
    """A cleared conversation: what the core set aside (messages, session) and the transcript's
    entries (as records)."""

    conversation: SetAside
    entries: list[Callable[[], Widget]]


class ClearFlow:
    """Carries out the ``clear`` / ``new`` and ``undo_clear`` command actions for ``app``."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.saved: SavedConversation | None = None

    async def clear(self) -> None:
        """Ask (when there are messages), then clear; run inside a worker (it awaits a dialog)."""
        from agent_tui.ui.screens.confirm_clear import ConfirmClearScreen

        app = self.app
        count = len(app.front.messages)
        if count and not await app.push_screen_wait(ConfirmClearScreen(count)):
            await app.transcript.add(Note("Kept the conversation."))
            return
        entries = app.transcript.records()
        aside = app.front.clear()
        if count:
            self.saved = SavedConversation(aside, entries)
        await app.transcript.clear()
        app.refresh_todo()
        app.status.show_spending(app.front.spending())
        if count:
            text = f"Cleared {plural(count, 'message')} — /undo-clear brings them back."
            if (session := aside.session_id) is not None:
                text += f" They stay in session {session} (/resume, agent-tui --resume {session})."
            await app.transcript.add(Note(text))

    async def undo(self) -> None:
        """Swap the last cleared conversation (and its session) with the current one."""
        app = self.app
        if self.saved is None:
            text = "Nothing to bring back: no conversation was cleared in this run"
            await app.transcript.add(Note(text + " (an earlier one is in /resume)."))
            return
        saved, entries = self.saved, app.transcript.records()
        current = app.front.undo_clear(saved.conversation)
        self.saved = SavedConversation(current, entries) if current.messages else None
        await app.transcript.restore(saved.entries)
        app.refresh_todo()
        app.status.show_spending(app.front.spending())
        count = len(saved.conversation.messages)
        await app.transcript.add(Note(f"Brought back {plural(count, 'message')}."))
