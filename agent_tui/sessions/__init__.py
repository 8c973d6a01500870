"""Sessions: every conversation saved as it happens, and resumed.

``store`` says where files live, ``writer`` appends to them, ``loader`` reads them back,
``replay`` turns a loaded session into the events that draw its transcript, ``retention`` bounds
the folder, and ``resume`` picks the session a run continues (``--continue``, ``--resume``).
``export`` writes one out for people (``/export``, ``agent-tui export``: ``export_cli``), ``fork``
copies one under a new id (``/fork``, ``--fork``).
"""

from agent_tui.sessions.loader import LoadedSession, SessionFileError, load
from agent_tui.sessions.store import SessionInfo, SessionStore, new_session_id, workspace_key
from agent_tui.sessions.writer import SessionRecorder, SessionWriter

__all__ = [
    "LoadedSession",
    "SessionFileError",
    "SessionInfo",
    "SessionRecorder",
    "SessionStore",
    "SessionWriter",
    "load",
    "new_session_id",
    "workspace_key",
]
