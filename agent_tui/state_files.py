"""Files in the user's state dir: private, and never able to break the app (DESIGN §9).

Everything agent-tui writes there (approvals, trust, the tool picker's choices, prompt history,
sessions, logs, terminal and MCP server logs) may hold the user's code or say what may run unasked,
so folders are created 0700 and files 0600. A state file that cannot be decoded or has the wrong
shape is moved aside as ``<name>.corrupt-<time>`` (kept for the user, never silently overwritten)
and work goes on; each move leaves a one-line notice that the app shows (``take_notices``).
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
from pathlib import Path

from agent_tui.errors import ConfigError

logger = logging.getLogger(__name__)

DIR_MODE = 0o700
FILE_MODE = 0o600
_notices: list[str] = []


def take_notices() -> list[str]:
    """The notices about moved-aside files since the last call (each is shown once)."""
    taken = list(_notices)
    _notices.clear()
    return taken


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
            folder.mkdir(mode=DIR_MODE, exist_ok=True)
    return path


def write_private(path: Path, text: str, *, sync: bool = True) -> None:
    """Replace ``path`` with ``text`` atomically (temp file + rename), mode 0600.

    Args:
        path: the file.
        text: its new content.
        sync: fsync the new content before the rename, so that a crash leaves the old file or the
            new one, never an empty one. A cache can do without (0.5-10 ms on a busy disk).
    """
    private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # mkstemp creates it 0600
            fh.write(text)
            fh.flush()
            if sync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def check_writable(folder: Path) -> None:
    """Fail with one clear line when the state dir cannot be written (checked once at start).

    Raises:
        ConfigError: the folder cannot be created or written (exit 2).
    """
    try:
        private_dir(folder)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-check-")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ConfigError(
            f"the state dir is not writable ({exc.strerror or exc}); "
            "set AGENT_TUI_STATE_DIR to a folder you can write",
            file=str(folder),
        ) from None
