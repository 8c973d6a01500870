"""Files in the user's state dir: private, and never able to break the app (DESIGN §9).

Everything agent-tui writes there (approvals, trust, the tool picker's choices, prompt history,
sessions, logs, terminal and MCP server logs) may hold the user's code or say what may run unasked,
so folders are created 0700 and files 0600. A state file that cannot be decoded or has the wrong
shape is moved aside as ``<name>.corrupt-<time>`` (kept for the user, never silently overwritten)
and work goes on; each move leaves a one-line notice that the app shows (``take_notices``).

A state dir that cannot be written (a full disk, a read-only mount, ``sessions`` made a file) must
not end the user's work either: each kind of write that fails leaves one notice
(:func:`write_failed`) and the conversation goes on without it. Writes that replace a file are
atomic (temp file + rename), so a failure leaves the old file whole.
"""

from __future__ import annotations

import errno
import logging
import os
import time
from pathlib import Path

from agent_tui.errors import ConfigError

logger = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
_notices: list[str] = []
_failed_writes: set[str] = set()
WHOLE_STATE_DIR = "anything in the state dir"


def take_notices() -> list[str]:
    """The notices about moved-aside files since the last call (each is shown once)."""
    taken = list(_notices)
    _notices.clear()
    return taken


def write_failed(what: str, exc: OSError, consequence: str) -> None:
    """Leave one notice the first time writing ``what`` fails (later failures say nothing more).

    Args:
        what: the kind of state, as the notice names it ("the session", "the log").
        exc: the failure.
        consequence: what the user should know, e.g. "the conversation goes on unsaved".
    """
    if what in _failed_writes or WHOLE_STATE_DIR in _failed_writes:
        return  # said once; and an unwritable state dir was said for everything in it
    _failed_writes.add(what)
    where = f"{exc.filename}: " if exc.filename else ""
    _notices.append(f"cannot save {what} ({where}{exc.strerror or exc}); {consequence}.")


def move_aside(path: Path, reason: str) -> Path | None:
    """Move a damaged state file to ``<name>.corrupt-<time>`` and leave a notice.

    Returns:
        Where it went, or None when it was already gone (another process moved it).
    """
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return None
    except OSError as exc:
        logger.warning("cannot move aside %s: %s", path, exc)
        _notices.append(f"{path} is damaged ({reason}) and cannot be moved aside; it is ignored.")
        return None
    logger.warning("%s: %s; moved to %s", path, reason, aside)
    _notices.append(
        f"{path.name} was damaged ({reason}): moved it to {aside.name}, started afresh."
    )
    return aside


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) as a folder only the user can enter."""
    # mkdir(parents=True) gives the parents it makes the umask's mode (0755), not ``mode``.
    for folder in [*reversed(path.parents), path]:
        if not folder.is_dir():
            try:
                folder.mkdir(mode=DIR_MODE)
            except FileExistsError:
                if not folder.is_dir():  # a file (or a link to one) where a folder should be
                    raise NotADirectoryError(
                        errno.ENOTDIR, "it is a file, not a folder", str(folder)
                    ) from None
    return path


def write_private(
    path: Path, text: str | bytes, *, sync: bool = True, mode: int = FILE_MODE
) -> None:
    """Replace ``path`` with ``text`` atomically (temp file + rename), mode 0600.

    A failure (a full disk) leaves the old file as it was and no temp file behind.

    Args:
        path: the file.
        text: its new content (bytes are written as they are).
        sync: fsync the new content before the rename, so that a crash leaves the old file or the
            new one, never an empty one. A cache can do without (0.5-10 ms on a busy disk).
        mode: another mode for the new file (a config file the user edits keeps its own).
    """
    private_dir(path.parent)
    fd, tmp = new_temp_file(path.parent, f".{path.name}.", ".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:  # created 0600
            if mode != FILE_MODE:
                os.fchmod(fh.fileno(), mode)
            fh.write(text.encode("utf-8") if isinstance(text, str) else text)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def new_temp_file(folder: Path, prefix: str, suffix: str = "") -> tuple[int, str]:
    """A new file in ``folder`` with an unused random name, created 0600 and open for writing:
    what ``tempfile.mkstemp`` gives, without importing tempfile, random and shutil on every start
    (~5 ms of ``-p hello``).

    Returns:
        The descriptor (the caller closes it) and the file's path.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(100):  # as mkstemp: another name when one is taken
        name = os.path.join(folder, f"{prefix}{os.urandom(6).hex()}{suffix}")
        try:
            return os.open(name, flags, FILE_MODE), name
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temporary file name", str(folder))


def private_fd(path: Path, *, append: bool) -> int:
    """A descriptor for writing ``path`` (appending, or truncating), created 0600 if new.

    Wrap it with ``open(fd, mode)``, which then owns (and closes) it.
    """
    private_dir(path.parent)
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(path, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # a log an older version left 0644 becomes private too
    except OSError:
        pass  # not ours to change (another user's file): write to it as it is
    return fd


def unwritable(folder: Path) -> OSError | None:
    """Why the state dir cannot be written (its path as the error's filename), or None."""
    try:
        private_dir(folder)
        fd, probe = new_temp_file(folder, ".write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        return OSError(exc.errno, exc.strerror, str(folder))
    return None


def check_writable(folder: Path) -> None:
    """Fail with one clear line when the state dir cannot be written (``agent-tui mcp login``
    must keep its tokens; a conversation goes on without, see cli.py).

    Raises:
        ConfigError: the folder cannot be created or written (exit 2).
    """
    exc = unwritable(folder)
    if exc is not None:
        raise ConfigError(
            f"the state dir is not writable ({exc.strerror or exc}); "
            "set AGENT_TUI_STATE_DIR to a folder you can write",
            file=str(folder),
        ) from None


def prune_oldest(folder: Path, pattern: str, *, keep: int, max_bytes: int, incoming: int) -> None:
    """Make room for one more file in ``folder``: of the files matching ``pattern``, delete the
    oldest until fewer than ``keep`` remain and they and ``incoming`` bytes fit in ``max_bytes``."""
    stats = []
    for path in folder.glob(pattern):
        try:
            stats.append((path.stat(), path))
        except OSError:
            continue  # deleted meanwhile
    stats.sort(key=lambda sp: sp[0].st_mtime)
    total = sum(st.st_size for st, _ in stats)
    count = len(stats)
    for st, path in stats:
        if count < keep and total + incoming <= max_bytes:
            break
        path.unlink(missing_ok=True)
        count -= 1
        total -= st.st_size
