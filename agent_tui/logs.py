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
import logging.handlers
import sys
from pathlib import Path

from agent_tui.paths import state_dir
from agent_tui.state_files import private_dir, private_fd, write_failed
from agent_tui.text_safety import visible

LOG_NAME = "agent-tui.log"


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Creates each log file (the first and every rotation) 0600: logs quote the user's work."""

    broken = False

    def _open(self) -> io.TextIOWrapper:
        # Always appending: RotatingFileHandler opens in "a" whenever it rotates by size.
        return open(private_fd(Path(self.baseFilename), append=True), "a", encoding=self.encoding)

    def emit(self, record: logging.LogRecord) -> None:
        if not self.broken:
            super().emit(record)

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
        handler = _PrivateRotatingFileHandler(
            folder / LOG_NAME, maxBytes=1 << 20, backupCount=3, encoding="utf-8"
        )
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
