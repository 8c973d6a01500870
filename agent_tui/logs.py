"""Logging to state_dir()/logs/agent-tui.log (DESIGN §9).

Without a handler Python prints warnings to stderr, which would scribble over the app's screen and
mix into a script's output; the log file keeps them for bug reports instead. Keys never reach it:
providers redact them from every message they raise or log.

A log that cannot be written (a full disk, ``logs`` made a file) never prints Python's
``--- Logging error ---`` traceback: the first failure leaves one notice and logging goes quiet.
"""

from __future__ import annotations

import io
import logging
import os
import sys
from pathlib import Path

from agent_tui.paths import state_dir
from agent_tui.state_files import private_dir, private_fd, write_failed
from agent_tui.text_safety import visible

LOG_NAME = "agent-tui.log"


class PrivateRotatingLog(logging.FileHandler):
    """A log file that rotates by size (``max_bytes``; ``.1`` … ``.{backups}`` kept, as the
    standard ``RotatingFileHandler`` does), each file created 0600: logs quote the user's work.

    Not ``logging.handlers.RotatingFileHandler``: importing ``logging.handlers`` brings pickle,
    socket, queue, struct and copy with it, ~3 ms of every start (``-p hello`` included).
    """

    broken = False

    def __init__(self, path: Path, *, max_bytes: int, backups: int) -> None:
        super().__init__(path, "a", encoding="utf-8")
        self.max_bytes = max_bytes
        self.backups = backups

    def _open(self) -> io.TextIOWrapper:
        return open(private_fd(Path(self.baseFilename), append=True), "a", encoding=self.encoding)

    def emit(self, record: logging.LogRecord) -> None:
        if self.broken:
            return
        try:
            if self._full(record):
                self._rotate()
        except Exception:  # as the standard handler: a failure is reported by handleError
            self.handleError(record)
            return
        super().emit(record)

    def _full(self, record: logging.LogRecord) -> bool:
        """Whether ``record`` would take the file past ``max_bytes`` (only a regular file
        rotates: never ``/dev/null`` or a pipe, bpo-45401)."""
        name = self.baseFilename
        if os.path.exists(name) and not os.path.isfile(name):
            return False
        if self.stream is None:
            self.stream = self._open()
        self.stream.seek(0, os.SEEK_END)
        return self.stream.tell() + len(f"{self.format(record)}\n") >= self.max_bytes

    def _rotate(self) -> None:
        """``.{n-1}`` -> ``.{n}`` … the file -> ``.1``, the oldest dropped; then a new file."""
        if self.stream:
            self.stream.close()
            self.stream = None
        name = self.baseFilename
        for number in range(self.backups - 1, 0, -1):
            if os.path.exists(f"{name}.{number}"):
                os.replace(f"{name}.{number}", f"{name}.{number + 1}")
        if self.backups and os.path.exists(name):
            os.replace(name, f"{name}.1")
        self.stream = self._open()

    def handleError(self, record: logging.LogRecord) -> None:
        # Called from emit's except clause: the default prints "--- Logging error ---" and a
        # traceback to stderr, over the app's screen, for every record. Say it once instead.
        exc = sys.exc_info()[1]
        if isinstance(exc, OSError):
            self.broken = True
            write_failed("the log", exc, "logging is off for this run")
        else:  # a record that cannot be formatted is a bug: keep Python's report of it
            super().handleError(record)


class VisibleFormatter(logging.Formatter):
    """Log lines with control characters made visible: records quote servers, tools and models,
    and ``tail -f`` on the log must not run their escape sequences (tracebacks keep their lines)."""

    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))


def setup_logging(level: int = logging.INFO) -> None:
    """Send agent-tui's log records to a rotating file (1 MiB x 3); safe to call twice."""
    root = logging.getLogger("agent_tui")
    if any(getattr(h, "_agent_tui", False) for h in root.handlers):
        return
    root.propagate = False  # never to the last-resort stderr handler
    try:
        folder = private_dir(state_dir() / "logs")
        handler = PrivateRotatingLog(folder / LOG_NAME, max_bytes=1 << 20, backups=3)
    except OSError as exc:
        write_failed("the log", exc, "logging is off for this run")
        quiet = logging.NullHandler()  # without any handler, warnings reach the last resort
        quiet._agent_tui = True  # type: ignore[attr-defined]
        root.addHandler(quiet)
        _take_sdk_warnings(quiet)
        return
    handler._agent_tui = True  # type: ignore[attr-defined]  # marks ours for the check above
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
    _take_sdk_warnings(handler)


def _take_sdk_warnings(handler: logging.Handler) -> None:
    """The MCP SDK's warnings too (a server process that outlives its kill, a broken pipe): they
    would otherwise print on stderr, over the app's screen."""
    sdk = logging.getLogger("mcp")
    sdk.addHandler(handler)
    sdk.setLevel(logging.WARNING)
    sdk.propagate = False
