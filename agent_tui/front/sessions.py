"""Saved sessions as a front end offers them: the others of this folder, and switching to one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.front.grants import Grants
    from agent_tui.sessions.loader import LoadedSession
    from agent_tui.sessions.store import SessionInfo


def saved_sessions(workspace: Path | None) -> list[SessionInfo]:
    """The saved sessions of ``workspace`` (None: of every workspace), newest first; for a front
    end that lists them before it has a ``Front`` (ACP's ``session/list``)."""
    from agent_tui.paths import state_dir
    from agent_tui.sessions.store import SessionStore

    store = SessionStore(state_dir(), workspace or Path.cwd())
    return store.list() if workspace is not None else store.list_everywhere()


class Sessions:
    def __init__(self, agent: Agent, grants: Grants) -> None:
        self._agent = agent
        self._grants = grants

    @property
    def current_id(self) -> str:
        """The id of the session being recorded ("" when none is)."""
        recorder = self._agent.recorder
        return recorder.session_id if recorder is not None else ""

    async def history_ready(self) -> None:
        """Parse a resumed session's conversation, a step at a time (started after its first
        screen is drawn; a turn waits for it in any case)."""
        await self._agent.history_ready()

    def others(self) -> list[SessionInfo]:
        """This folder's saved sessions but the current one, newest first, with message counts."""
        from agent_tui.agent.resume import store_for

        current = self.current_id
        return [i for i in store_for(self._agent).list(counts=True) if i.id != current]

    def find(self, session_id: str) -> SessionInfo | None:
        """This folder's saved session ``session_id`` (None: no such session here)."""
        from agent_tui.agent.resume import same_workspace, store_for

        store = store_for(self._agent)
        info = store.get(session_id)
        return info if info is not None and same_workspace(info, store) else None

    def switch_to(self, info: SessionInfo, *, fork: bool = False) -> LoadedSession:
        """Resume ``info`` in place of the current conversation (``fork``: a copy of it under a
        new id, the original left as it is); this session's "session" grants end with it.

        Raises:
            OSError: the file cannot be read.
            SessionFileError: it is not a session file.
        """
        from agent_tui.agent.resume import forked, resume

        loaded = resume(self._agent, forked(self._agent, info) if fork else info)
        self._grants.end_session()
        return loaded

    def fork(self) -> LoadedSession:
        """Go on in a copy of this session under a new id, named "NAME (fork)"; the original
        file is left as it is. This session's "session" grants end with it, as on a switch.

        Raises:
            UsageError: nothing of this session is saved yet.
            OSError, SessionFileError: the copy cannot be made or read back.
        """
        from agent_tui.agent.resume import fork_current

        loaded = fork_current(self._agent)
        self._grants.end_session()
        return loaded
