"""Which session a run continues, and attaching it to the agent.

``--continue`` takes this workspace's latest session, ``--resume ID|NAME`` the one named (an
id, a name given by ``/rename`` or a unique prefix of either; the app asks before resuming another
workspace's; headless refuses), ``--resume`` alone opens the picker in the app. ``--fork`` with
either continues a copy under a new id (``sessions/fork.py``). A run with neither starts a new session, and old ones beyond ``[sessions] keep`` /
``keep_days`` are deleted then. Grants of scope "session" live in memory only and are never part
of a session file, so a resumed session starts without them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.agent.saved_state import restore_state
from agent_tui.agent.totals import restore as restore_totals
from agent_tui.errors import UsageError
from agent_tui.sessions.loader import LoadedSession, load
from agent_tui.sessions.retention import DEFAULT_KEEP, prune_sessions
from agent_tui.sessions.store import AmbiguousSession, SessionInfo, SessionStore, find_session
from agent_tui.sessions.writer import SessionRecorder, SessionWriter
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

LIST_HINT_COUNT = 10


@dataclass
class SessionStart:
    """What the app does first about sessions (decided by the CLI, carried out on mount).

    Attributes:
        loaded: a session resumed before the app started: draw its transcript.
        pick: open the picker (``--resume`` without an id).
        fork: what the picker picks is continued as a copy (``--resume --fork``).
        other: a session of another workspace: ask before resuming it.
        note: something to say (e.g. no session to continue).
    """

    loaded: LoadedSession | None = None
    pick: bool = False
    fork: bool = False
    other: SessionInfo | None = None
    note: str = ""


def store_for(agent: Agent) -> SessionStore:
    from agent_tui.paths import state_dir

    return SessionStore(state_dir(), agent.deps.workspace)


def start_new(agent: Agent, store: SessionStore) -> None:
    """Attach a new session (its file appears with the first turn); prune old ones."""
    if agent.recorder is not None:
        agent.recorder.close()
    keep = agent.deps.config.section("sessions", "keep")
    days = agent.deps.config.section("sessions", "keep_days")
    # One less than ``keep``: the session starting now is the newest of the ones kept.
    prune_sessions(
        store.folder,
        (keep if isinstance(keep, int) else DEFAULT_KEEP) - 1,
        days if isinstance(days, int | float) else 0,
    )
    agent.recorder = SessionRecorder(store.create(agent.model.name))
    _file_checkpoints_under_the_session(agent)


def resume(agent: Agent, info: SessionInfo) -> LoadedSession:
    """Load ``info``'s session into the agent; what follows is appended to its file.

    Raises:
        OSError: the file cannot be read.
        SessionFileError: it is not a session file.
    """
    loaded = load(info.path)
    if agent.recorder is not None:
        agent.recorder.close()
    history = loaded.history
    assert history is not None  # load() gives every session one
    agent.resume_history(history)
    header = loaded.header
    writer = SessionWriter(
        info.path,
        info.id,
        str(header.get("workspace", "")),
        str(header.get("model", "")),
        str(header.get("title", "")),
        exists=True,
        name=loaded.name,
    )
    recorder = agent.recorder = SessionRecorder(writer)
    # What the file already holds: nothing is synced before it is known (a turn, and any
    # reader of the conversation, waits for the history, which tells the recorder first).
    history.then(lambda conversation: recorder.written(conversation.messages))
    _file_checkpoints_under_the_session(agent)
    from agent_tui.sessions.timeline import standing  # here: a new session needs none

    stood = standing(loaded)  # the turns as they now stand (rewound ones gone)
    _restore_todo(agent, loaded, stood.todos)
    # What its earlier runs spent and changed (a fork starts with its parent's: the copy's).
    agent.totals = restore_totals(loaded)
    restore_state(agent, loaded)  # its extra roots and loaded tools, each checked again
    files = agent.deps.checkpoints
    if files is not None:
        # The prompts as typed of the turns still in the conversation: a checkpoint of a
        # rewound turn must not lend its text to the prompt now at its index (/rewind's list).
        files.prompts = stood.prompts
    return loaded


def _restore_todo(agent: Agent, loaded: LoadedSession, todos: Sequence[tuple[int, int]]) -> None:
    """The todo list as the turns that still stand left it (one sent in a turn ``/rewind`` cut
    off does not count), and the lists before it, for a later ``/rewind``."""
    from agent_tui import events as ev
    from agent_tui.tools.todo import restore_todo

    history = []
    for count, line in todos:
        for event in loaded.drawable(line, line + 1):  # read back from the file, decoded
            if isinstance(event, ev.TodoUpdated):
                history.append((count, event.items))
    restore_todo(agent.deps.session, history[-1][1] if history else (), tuple(history))


def switch_recorder(agent: Agent, recorder: SessionRecorder) -> None:
    """Attach ``recorder`` (a session ``/clear`` set aside) in place of the current one: what
    follows is appended to its file, and ``/undo`` finds its turns again."""
    if agent.recorder is not None:
        agent.recorder.close()
    agent.recorder = recorder
    _file_checkpoints_under_the_session(agent)


def _file_checkpoints_under_the_session(agent: Agent) -> None:
    files = agent.deps.checkpoints
    if files is not None and agent.recorder is not None:
        files.attach_run(agent.recorder.session_id)


def same_workspace(info: SessionInfo, store: SessionStore) -> bool:
    return Path(info.workspace) == store.workspace if info.workspace else False


def age(seconds_ago: float) -> str:
    """``"3 min ago"``, ``"5 h ago"``, ``"2 d ago"``."""
    if seconds_ago < 90:
        return "just now"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds_ago >= size * (1.5 if unit != "min" else 1):
            return f"{int(seconds_ago // size)} {unit} ago"
    return "just now"


def list_hint(store: SessionStore) -> str:
    """The latest sessions of this workspace, one per line, for an error message."""
    lines = _listed(store.list()[:LIST_HINT_COUNT])
    if not lines:
        return "no sessions are saved for this workspace"
    return "sessions of this workspace (newest first):\n" + lines


def _listed(infos: list[SessionInfo]) -> str:
    now = time.time()
    return "\n".join(
        f"  {i.id}  {age(now - i.modified):>10}  {one_line(i.label)[:60]}" for i in infos
    )


def named_session(store: SessionStore, query: str, said: str = "--resume") -> SessionInfo | None:
    """``find_session``, an ambiguous name said as a usage error (``said``: what asked) that
    lists the candidates.

    Raises:
        UsageError: more than one session answers to ``query`` (exit 2).
    """
    try:
        return find_session(store, query)
    except AmbiguousSession as many:
        shown = many.matches[:LIST_HINT_COUNT]
        more = len(many.matches) - len(shown)
        tail = f"\n  … and {more} more" if more > 0 else ""
        raise UsageError(
            f"{said}: {one_line(query)[:100]!r} names {len(many.matches)} sessions; "
            f"give more of the name or the id:\n{_listed(shown)}{tail}"
        ) from None


def forked(agent: Agent, info: SessionInfo) -> SessionInfo:
    """A copy of ``info`` in this workspace's folder under a new id (``sessions/fork.py``).

    Raises:
        OSError: it cannot be read or the copy written.
    """
    from agent_tui.sessions.fork import fork_session

    return fork_session(store_for(agent), info)


def fork_current(agent: Agent) -> LoadedSession:
    """``/fork``: continue a copy of the session being recorded under a new id.

    Raises:
        UsageError: nothing of this session is saved yet.
        OSError, SessionFileError: the copy cannot be made or read.
    """
    store = store_for(agent)
    recorder = agent.recorder
    if recorder is not None:
        recorder.sync(agent.conversation)
    info = store.get(recorder.session_id) if recorder is not None else None
    if info is None:
        raise UsageError("nothing to fork yet: this session is saved with its first prompt")
    return resume(agent, forked(agent, info))


def attach_headless(
    agent: Agent, *, cont: bool, resume_id: str | None, fork: bool = False
) -> list[str]:
    """``-p``: attach a new session, or the one ``--continue`` / ``--resume ID|NAME`` names
    (``fork``: a copy of it under a new id). Returns what resuming left out (extra roots no
    longer allowed), for the user.

    Raises:
        UsageError: no session to continue, no id, an unknown or ambiguous name, another
            workspace's, or ``--fork`` alone (exit 2).
    """
    store = store_for(agent)
    if not cont and resume_id is None:
        if fork:
            raise UsageError("--fork goes with --continue or --resume ID|NAME")
        start_new(agent, store)
        return []
    if cont:
        info = store.latest()
        if info is None:
            raise UsageError("--continue: no saved session in this workspace")
    elif not resume_id:
        raise UsageError(f"--resume needs a session id or name with -p; {list_hint(store)}")
    else:
        info = _named_here(store, resume_id)
    return _resume_or_fail(agent, info, fork=fork).notices


def _named_here(store: SessionStore, query: str) -> SessionInfo:
    """The session ``--resume QUERY`` names, which must be this workspace's."""
    info = named_session(store, query)
    if info is None:
        raise UsageError(f"--resume: no session {one_line(query)[:100]!r}; {list_hint(store)}")
    if not same_workspace(info, store):
        raise UsageError(
            f"--resume: session {info.id} belongs to another workspace "
            f"({one_line(info.workspace)}); run it there (-C)"
        )
    return info


def attach_app(
    agent: Agent, *, cont: bool, resume_id: str | None, fork: bool = False
) -> SessionStart:
    """The app: resume now when the choice needs no question, else say what to ask.

    Raises:
        UsageError: an ambiguous name, or ``--fork`` without a session to copy (exit 2).
    """
    store = store_for(agent)
    if fork and not cont and resume_id is None:
        raise UsageError("--fork goes with --continue or --resume [ID|NAME]")
    start_new(agent, store)  # replaced below when a session is resumed
    if cont:
        info = store.latest()
        if info is None:
            return SessionStart(note="No saved session in this folder yet: starting a new one.")
        return SessionStart(loaded=_resume_or_fail(agent, info, fork=fork))
    if resume_id is None:
        return SessionStart()
    if not resume_id:
        return SessionStart(pick=True, fork=fork)
    if fork:
        return SessionStart(loaded=_resume_or_fail(agent, _named_here(store, resume_id), fork=True))
    info = named_session(store, resume_id)
    if info is None:
        return SessionStart(note=f"No session {resume_id!r}: starting a new one.", pick=False)
    if not same_workspace(info, store):
        return SessionStart(other=info)
    return SessionStart(loaded=_resume_or_fail(agent, info))


def _resume_or_fail(agent: Agent, info: SessionInfo, *, fork: bool = False) -> LoadedSession:
    from agent_tui.sessions.loader import SessionFileError

    try:
        return resume(agent, forked(agent, info) if fork else info)
    except (OSError, SessionFileError) as exc:
        raise UsageError(f"cannot resume session {info.id}: {exc}") from None
