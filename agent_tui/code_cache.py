"""Compiled dataclass methods kept between runs: a start-up cost paid once, not on every start.

``@dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` (and for a
frozen one ``__setattr__``/``__delattr__``) as source text and compiles it while the module is
imported. agent-tui defines ~230 dataclasses and Textual and Rich more; compiling their methods
was the largest single part of the CPU a start takes (about 0.5 ms a class: 80 ms for `-p hello`,
more for the app). The ``dataclasses`` module calls ``exec`` by its module-global name, so giving
it one that looks the source text up in a table of code objects (read from the state dir at
start, written back at exit when something new was compiled) skips the compiling and changes
nothing else: the same source, the same namespaces, the same resulting functions.

The table is keyed by the whole source text, so an entry can only stand for exactly that text;
the file is the user's own (in the private state dir, read only when owned by this user and not
writable by others), per Python version (code objects are version-specific), and any damage to
it means compiling again. ``AGENT_TUI_NO_CODE_CACHE=1`` turns it off.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import marshal
import os
import stat
import sys
from pathlib import Path
from types import CodeType
from typing import Any

MAX_ENTRIES = 5000  # past this, only what the last run used is kept (old versions' classes)
_FILE = f"dataclass-code-{sys.implementation.cache_tag}.marshal"
_installed: list[_Table] = []


class _Table:
    """Source text -> its code object, marshalled: a run unmarshals only the code it uses (one
    ``marshal.loads`` of the whole table of code objects took 5x longer than this)."""

    def __init__(self, path: Path, known: dict[str, bytes]) -> None:
        self.path = path
        self.known = known
        self.used: set[str] = set()
        self.added = 0

    def exec(self, source: Any, globals: Any = None, locals: Any = None, /) -> None:
        if not isinstance(source, str):
            return builtins.exec(source, globals, locals)
        self.used.add(source)
        return builtins.exec(self._code(source), globals, locals)

    def _code(self, source: str) -> CodeType:
        saved = self.known.get(source)
        if saved is not None:
            try:
                code = marshal.loads(saved)
            except (EOFError, ValueError, TypeError):
                code = None
            if isinstance(code, CodeType):
                return code
        code = compile(source, "<string>", "exec")
        self.known[source] = marshal.dumps(code)
        self.added += 1
        return code

    def save(self) -> None:
        if not self.added:
            return
        self.added = 0
        table = self.known
        if len(table) > MAX_ENTRIES:
            table = {source: table[source] for source in self.used}
        temp = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(marshal.dumps(table))
            os.replace(temp, self.path)  # whole or not at all: another run may be reading it
        except OSError:  # a full disk or a read-only state dir: the next run compiles again
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)


def _read(path: Path) -> dict[str, bytes]:
    """The saved table, or an empty one when it is missing, not ours, or damaged."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return {}
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if (
            not stat.S_ISREG(info.st_mode)
            or info.st_uid != os.getuid()
            or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        ):
            return {}
        try:
            # One read, then loads: marshal.load on a file reads it in small pieces (~8x slower).
            table = marshal.loads(handle.read())
        except (EOFError, ValueError, TypeError):
            return {}
    if not isinstance(table, dict):
        return {}
    return {k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, bytes)}


def install(folder: Path) -> bool:
    """Serve ``dataclasses``' compiling from the table in ``folder`` from now on (once)."""
    import dataclasses

    if os.environ.get("AGENT_TUI_NO_CODE_CACHE") or "exec" in vars(dataclasses):
        return False
    path = folder / _FILE
    table = _Table(path, _read(path))
    dataclasses.exec = table.exec  # type: ignore[attr-defined]
    atexit.register(table.save)
    _installed.append(table)
    return True


def save() -> None:
    """Write what was compiled so far now (the app, once its first screen is built: a session
    that is killed never reaches atexit); nothing when nothing new was compiled."""
    for table in _installed:
        table.save()
