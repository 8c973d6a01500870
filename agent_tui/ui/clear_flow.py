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

from agent_tui.agent import resume as sessions
from agent_tui.conversation import Message
from agent_tui.plural import plural
from agent_tui.sessions.writer import SessionRecorder
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


@dataclass
class SavedConversation:
    """A cleared conversation: the agent's messages, the transcript's entries (as records) and
    the session it is saved in (None when the agent saves no session)."""

    messages: list[Message]
    entries: list[Callable[[], Widget]]
    recorder: SessionRecorder | None = None


class ClearFlow:
    """Carries out the ``clear`` / ``new`` and ``undo_clear`` command actions for ``app``."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.saved: SavedConversation | None = None

    def _take(self) -> SavedConversation:
        agent = self.app.agent
        entries = self.app.transcript.records()
        return SavedConversation(list(agent.conversation.messages), entries, agent.recorder)

    async def clear(self) -> None:
        """Ask (when there are messages), then clear; run inside a worker (it awaits a dialog)."""
        from agent_tui.ui.screens.confirm_clear import ConfirmClearScreen

        app = self.app
        count = len(app.agent.conversation.messages)
        if count and not await app.push_screen_wait(ConfirmClearScreen(count)):
            await app.transcript.add(Note("Kept the conversation."))
            return
        if count:
            self.saved = self._take()
        app.agent.reset()
        if count and app.agent.recorder is not None:
            sessions.start_new(app.agent, sessions.store_for(app.agent))
        await app.transcript.clear()
        if count:
            text = f"Cleared {plural(count, 'message')} — /undo-clear brings them back."
            if self.saved is not None and self.saved.recorder is not None:
                session = self.saved.recorder.session_id
                text += f" They stay in session {session} (/resume, agent-tui --resume {session})."
            await app.transcript.add(Note(text))

    async def undo(self) -> None:
        """Swap the last cleared conversation (and its session) with the current one."""
        app = self.app
        if self.saved is None:
            text = "Nothing to bring back: no conversation was cleared in this run"
            await app.transcript.add(Note(text + " (an earlier one is in /resume)."))
            return
        saved, current = self.saved, self._take()
        self.saved = current if current.messages else None
        if saved.recorder is not None:
            sessions.switch_recorder(app.agent, saved.recorder)
        app.agent.conversation.messages[:] = saved.messages
        await app.transcript.restore(saved.entries)
        await app.transcript.add(Note(f"Brought back {plural(len(saved.messages), 'message')}."))
