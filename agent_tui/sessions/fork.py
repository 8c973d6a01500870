"""``/fork`` and ``--fork``: a copy of a saved session under a new id, to continue apart.

The copy is the original's lines as they are (its log: rewinds, undos and interrupted turns read
the same), under a header with the new id and ``forked_from``, and a ``meta`` line naming it
"NAME (fork)". The original file is only read.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from agent_tui.safe_read import open_regular
from agent_tui.sessions.store import SessionInfo, SessionStore, new_session_id
from agent_tui.sessions.writer import NAME_CHARS, clean_name, dumps
from agent_tui.state_files import private_dir, private_fd

FORK_SUFFIX = " (fork)"


def fork_name(label: str) -> str:
    """``"NAME (fork)"``, the name kept within NAME_CHARS."""
    return clean_name(label)[: NAME_CHARS - len(FORK_SUFFIX)] + FORK_SUFFIX


def fork_session(store: SessionStore, info: SessionInfo) -> SessionInfo:
    """Copy ``info``'s session into this workspace's folder under a new id; return the copy.

    Raises:
        OSError: the original cannot be read or the copy written (a part written is removed).
    """
    private_dir(store.root)
    private_dir(store.folder)
    session_id = new_session_id()
    while store.path_for(session_id).exists():
        session_id = new_session_id()
    target = store.path_for(session_id)
    name = fork_name(info.label or info.id)
    try:
        _copy(info, target, session_id, name)
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    found = store.get(session_id)
    if found is None:
        raise OSError(f"the copy {target} cannot be read back")
    return found


def _copy(info: SessionInfo, target: Path, session_id: str, name: str) -> None:
    from agent_tui.sessions.store import MAX_HEADER_BYTES, read_header

    header = read_header(info.path)
    if header is None:
        raise OSError(f"{info.path.name} is not a session file")
    header.update(id=session_id, started=time.time(), forked_from=info.id, name=name)
    fd = private_fd(target, append=True)
    with open_regular(info.path) as source, os.fdopen(fd, "wb") as out:
        source.readline(MAX_HEADER_BYTES)  # the original's header: replaced
        out.write(dumps(header))
        last = b"\n"
        while chunk := source.read(1 << 20):
            out.write(chunk)
            last = chunk[-1:]
        if last != b"\n":
            out.write(b"\n")  # a torn last line stays torn, and the name is a line of its own
        out.write(dumps({"type": "meta", "name": name}))
