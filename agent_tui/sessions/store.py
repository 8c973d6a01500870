"""Where sessions live: ``<state>/sessions/<workspace-key>/<id>.jsonl``.

One folder per workspace (0700), one append-only file per session (0600). Listing reads each
file's header line and its modification time; only the picker asks for message counts, which
read the whole file.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from agent_tui.lazy_regex import lazy_pattern
from agent_tui.paths import workspace_dir_name
from agent_tui.safe_read import open_regular, read_bytes
from agent_tui.sessions.writer import SessionWriter
from agent_tui.state_files import private_dir

logger = logging.getLogger(__name__)

SUFFIX = ".jsonl"
# An id names a file: nothing that could climb out of the folder (``--resume ../x``) is one.
_ID = lazy_pattern(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_MESSAGE_LINE = b'{"type":"message"'  # how writer.py starts a message line
_META_LINE = b'\n{"type":"meta"'  # a /rename (writer.py): the last one in the file wins
# Caps on what is read of a session file (a FIFO or /dev/zero named *.jsonl must not hang a
# listing): a header line is small; a whole session with its images can be large.
MAX_HEADER_BYTES = 1 << 20
MAX_SESSION_BYTES = 512 << 20
META_BLOCK = 1 << 20  # read from the end this much at a time, looking for the last name


def workspace_key(workspace: Path) -> str:
    """The folder name for a workspace's sessions (paths.workspace_dir_name)."""
    return workspace_dir_name(workspace)


def new_session_id() -> str:
    """``20261124-065400-3fa2c1``: sorts by start time, unique enough for one user."""
    # os.urandom as secrets.token_hex does (secrets brings random, hmac and hashlib to a start)
    return time.strftime("%Y%m%d-%H%M%S") + "-" + os.urandom(3).hex()


def valid_id(session_id: str) -> bool:
    return bool(_ID().match(session_id))


def read_header(path: Path) -> dict[str, Any] | None:
    """The header line of a session file, or None when it is missing or not a header."""
    try:
        with open_regular(path) as fh:
            first = fh.readline(MAX_HEADER_BYTES)
        header = json.loads(first)
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("type") != "session":
        return None
    return header


@dataclass(frozen=True)
class SessionInfo:
    """One saved session, as the picker and ``--continue`` see it."""

    id: str
    path: Path
    workspace: str
    model: str
    title: str
    started: float
    modified: float
    messages: int = -1  # -1: not counted (only list(counts=True) reads whole files)
    name: str = ""  # given by /rename ("": none; the title names it)

    @property
    def label(self) -> str:
        """What the session is called: its name, else its title (the first prompt's line)."""
        return self.name or self.title


def last_name(path: Path, header: dict[str, Any]) -> str:
    """The session's name: its last ``meta`` line's, else the header's ("" when never named).

    The file is searched from its end a block at a time: a listing of long sessions costs a
    search per file (bytes.rfind: ~0.05 ms for 200 KB), never a whole file in memory.
    """
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            found = _last_meta(fh, min(size, MAX_SESSION_BYTES))
    except OSError:
        return ""
    return found if found is not None else str(header.get("name", ""))


def _last_meta(fh: BinaryIO, size: int) -> str | None:
    """The name of the last readable ``meta`` line of ``fh``'s first ``size`` bytes."""
    end = size
    while end > 0:
        start = max(0, end - META_BLOCK)
        fh.seek(start)
        block = fh.read(end - start)
        at = block.rfind(_META_LINE)
        while at >= 0:
            fh.seek(start + at + 1)
            name = _meta_name(fh.readline(MAX_HEADER_BYTES))
            if name is not None:
                return name
            at = block.rfind(_META_LINE, 0, at)  # a torn line: the one before it holds
        # The next block overlaps this one by a needle less a byte: none is cut in two.
        end = start + len(_META_LINE) - 1 if start > 0 else 0
    return None


def _meta_name(line: bytes) -> str | None:
    try:
        meta = json.loads(line)
    except ValueError:
        return None
    return str(meta.get("name", "")) if isinstance(meta, dict) else None


def _info(path: Path, *, count: bool) -> SessionInfo | None:
    header = read_header(path)
    if header is None:
        return None
    try:
        stat = path.stat()
        messages = read_bytes(path, MAX_SESSION_BYTES).count(_MESSAGE_LINE) if count else -1
    except OSError:
        return None
    started = header.get("started")
    return SessionInfo(
        id=path.stem,
        path=path,
        workspace=str(header.get("workspace", "")),
        model=str(header.get("model", "")),
        title=str(header.get("title", "")),
        started=float(started) if isinstance(started, int | float) else stat.st_mtime,
        modified=stat.st_mtime,
        messages=messages,
        name=last_name(path, header),
    )


class SessionStore:
    """The sessions of one workspace (and lookups by id across workspaces).

    Args:
        state_dir: the user's state dir (``paths.state_dir()``).
        workspace: the workspace folder; its real path keys the folder.
    """

    def __init__(self, state_dir: Path, workspace: Path) -> None:
        self.root = state_dir / "sessions"
        self.workspace = workspace.resolve()
        self.folder = self.root / workspace_key(self.workspace)

    def path_for(self, session_id: str) -> Path:
        return self.folder / f"{session_id}{SUFFIX}"

    def create(self, model: str, title: str = "") -> SessionWriter:
        """A writer for a new session; its file appears with the first line written."""
        try:
            private_dir(self.root)  # mkdir(parents=True) would make the parents 0755
            private_dir(self.folder)
        except OSError:
            pass  # the writer's first line fails too, and says so once; the turn goes on
        session_id = new_session_id()
        while self.path_for(session_id).exists():  # two starts in the same second
            session_id = new_session_id()
        return SessionWriter(
            self.path_for(session_id), session_id, str(self.workspace), model, title
        )

    def _paths(self) -> Iterator[Path]:
        try:
            yield from (p for p in self.folder.iterdir() if p.suffix == SUFFIX)
        except OSError:
            return

    def list_everywhere(self) -> list[SessionInfo]:
        """Every workspace's sessions, newest (last written) first."""
        try:
            paths = [p for p in self.root.glob(f"*/*{SUFFIX}") if valid_id(p.stem)]
        except OSError:
            return []
        infos = [i for p in paths if (i := _info(p, count=False)) is not None]
        return sorted(infos, key=lambda i: (i.modified, i.id), reverse=True)

    def list(self, *, counts: bool = False) -> list[SessionInfo]:
        """This workspace's sessions, newest (last written) first."""
        infos = [i for p in self._paths() if (i := _info(p, count=counts)) is not None]
        return sorted(infos, key=lambda i: (i.modified, i.id), reverse=True)

    def latest(self) -> SessionInfo | None:
        """The session of this workspace written last (``--continue``)."""
        paths = sorted(self._paths(), key=_mtime, reverse=True)
        for path in paths:
            if (info := _info(path, count=False)) is not None:
                return info
        return None

    def get(self, session_id: str) -> SessionInfo | None:
        """The session ``session_id``: this workspace's first, then any other workspace's.

        The caller compares ``info.workspace`` with its own to tell which.
        """
        if not valid_id(session_id):
            return None
        own = self.path_for(session_id)
        if own.is_file():
            return _info(own, count=False)
        try:
            others = sorted(self.root.glob(f"*/{session_id}{SUFFIX}"))
        except OSError:
            return None
        for path in others:
            if (info := _info(path, count=False)) is not None:
                return info
        return None


class AmbiguousSession(LookupError):
    """More than one session answers to a name or prefix (``matches``: them, newest first)."""

    def __init__(self, query: str, matches: list[SessionInfo]) -> None:
        super().__init__(query)
        self.query = query
        self.matches = matches


def find_session(store: SessionStore, query: str) -> SessionInfo | None:
    """The session ``query`` names: an id (any workspace's, as ``get``), else one of this
    workspace's by exact name, else by a unique prefix of its name or id (case-insensitive).

    Raises:
        AmbiguousSession: no exact match and more than one prefix match (or equal names).
    """
    info = store.get(query)
    if info is not None:
        return info
    wanted = " ".join(query.split()).casefold()
    if not wanted:
        return None
    listed = store.list()
    exact = [i for i in listed if i.name.casefold() == wanted]
    if len(exact) == 1:
        return exact[0]
    matches = exact or [
        i for i in listed if i.name.casefold().startswith(wanted) or i.id.startswith(query)
    ]
    if len(matches) > 1:
        raise AmbiguousSession(query, matches)
    return matches[0] if matches else None


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
