"""Reading a file the app opens on its own: regular files only, never more than a cap.

A ``#file:`` reference, an ``@path`` mention, ``--image``, an instructions file, a skill, a config
file or a session may name a FIFO, a socket, a device or a symlink to one. Reading a FIFO blocks
until a writer comes (forever, and Esc cannot cancel a thread stuck in ``read``); ``/dev/zero``
never ends. So every such read goes through here:

- ``stat`` first and refuse anything but a regular file before opening it (opening a device can
  act on its own: a tape rewinds, a terminal becomes the controlling one);
- open with ``O_NONBLOCK`` (opening a FIFO then returns at once) and ``fstat`` the descriptor, so
  a file swapped for a FIFO between the two calls is refused too;
- read at most ``cap + 1`` bytes, so a file that grows or lies about its size (``/proc``) stops.

The refusals are :class:`OSError` subclasses whose text is one sentence naming the path and what
it is, so callers that already report an ``OSError`` say something sensible without changes.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from agent_tui.plural import plural

# Files the app reads whole on its own (config, prompt files, skills, agents, hooks): generous for
# text a person wrote, small enough that a runaway file costs nothing.
MAX_TEXT_FILE_BYTES = 4 << 20

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link"),
)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words: ``a regular file``, ``a named pipe (FIFO)``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


class RefusedFile(OSError):
    """A file the app would not read; ``str()`` is one sentence naming the path."""

    def __init__(self, code: int, what: str, path: Path | str) -> None:
        # strerror reads after "cannot read X: "; str() is the whole sentence.
        super().__init__(code, f"it {what}", str(path))
        self.what = what

    def __str__(self) -> str:
        return f"{self.filename} {self.what}"


class NotRegularFile(RefusedFile):
    """A FIFO, socket, device or folder where a regular file was expected."""

    def __init__(self, path: Path | str, mode: int) -> None:
        code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
        super().__init__(code, f"is {file_kind(mode)}, not a regular file", path)
        self.kind = file_kind(mode)


class FileTooLarge(RefusedFile):
    """More bytes than the caller's cap; ``size`` is at least ``cap + 1``."""

    def __init__(self, path: Path | str, size: int, cap: int) -> None:
        super().__init__(
            errno.EFBIG, f"is larger than {_size(cap)}, the limit for reading it", path
        )
        self.size = size
        self.cap = cap


def _size(count: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:g} {unit}"
    return plural(count, "byte")


def check_regular(path: Path | str, *, follow_symlinks: bool = True) -> os.stat_result:
    """``stat`` ``path`` and refuse anything but a regular file.

    Raises:
        NotRegularFile: a FIFO, socket, device, folder (or, without ``follow_symlinks``, a link).
        OSError: it cannot be stat'ed (missing, permission).
    """
    st = os.stat(path, follow_symlinks=follow_symlinks)
    if not stat.S_ISREG(st.st_mode):
        raise NotRegularFile(path, st.st_mode)
    return st


def open_regular(path: Path | str, *, follow_symlinks: bool = True) -> BinaryIO:
    """Open a regular file for reading in binary mode, refusing anything else without blocking.

    Raises:
        NotRegularFile: not a regular file (checked before opening and again on the descriptor).
        OSError: it cannot be opened.
    """
    check_regular(path, follow_symlinks=follow_symlinks)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC
    if not follow_symlinks:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped in between the stat and the open
            raise NotRegularFile(path, st.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: Path | str, cap: int, *, follow_symlinks: bool = True) -> bytes:
    """The whole of a regular file of at most ``cap`` bytes.

    Raises:
        NotRegularFile: not a regular file.
        FileTooLarge: more than ``cap`` bytes (at most ``cap + 1`` are read to find out).
        OSError: it cannot be read.
    """
    with open_regular(path, follow_symlinks=follow_symlinks) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > cap:
            raise FileTooLarge(path, size, cap)
        data = handle.read(cap + 1)
    if len(data) > cap:
        raise FileTooLarge(path, len(data), cap)
    return data


def read_text(
    path: Path | str, cap: int, *, errors: str = "replace", follow_symlinks: bool = True
) -> str:
    """:func:`read_bytes` decoded as UTF-8 (``errors`` as for ``bytes.decode``)."""
    return read_bytes(path, cap, follow_symlinks=follow_symlinks).decode("utf-8", errors=errors)


def read_head(path: Path | str, count: int) -> bytes:
    """The first ``count`` bytes of a regular file (fewer when it is shorter).

    Raises:
        NotRegularFile: not a regular file.
        OSError: it cannot be read.
    """
    with open_regular(path) as handle:
        return handle.read(count)


def read_text_head(path: Path | str, max_chars: int) -> str:
    """The start of a regular UTF-8 text file: all of it when it has at most ``max_chars``
    characters, else at least ``max_chars + 1`` (so the caller can tell it was longer and cut it).

    Raises:
        NotRegularFile: not a regular file.
        OSError: it cannot be read.
    """
    # A character is at most 4 bytes in UTF-8: 4 * max_chars + 4 bytes hold more than max_chars.
    return read_head(path, 4 * max_chars + 4).decode("utf-8", errors="replace")
