"""Logging to state_dir()/logs/agent-tui.log (DESIGN §9).

Without a handler Python prints warnings to stderr, which would scribble over the app's screen and
mix into a script's output; the log file keeps them for bug reports instead. Keys never reach it:
providers redact them from every message they raise or log.
"""

from __future__ import annotations

import io
import logging
import logging.handlers
from pathlib import Path

from agent_tui.paths import state_dir
from agent_tui.state_files import private_dir, private_fd
from agent_tui.text_safety import visible

LOG_NAME = "agent-tui.log"


class _PrivateRotatingFileHandler(logging.handlers.RotatingFileHandler):
    """Creates each log file (the first and every rotation) 0600: logs quote the user's work."""

    def _open(self) -> io.TextIOWrapper:
        # Always appending: RotatingFileHandler opens in "a" whenever it rotates by size.
        return open(private_fd(Path(self.baseFilename), append=True), "a", encoding=self.encoding)


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
    folder = private_dir(state_dir() / "logs")
    handler = _PrivateRotatingFileHandler(
        folder / LOG_NAME, maxBytes=1 << 20, backupCount=3, encoding="utf-8"
    )
    handler._agent_tui = True  # type: ignore[attr-defined]  # marks ours for the check above
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(level)
    root.propagate = False  # never to the last-resort stderr handler
    # The MCP SDK's warnings too (a server process that outlives its kill, a broken pipe): they
    # would otherwise print on stderr, over the app's screen.
    sdk = logging.getLogger("mcp")
    sdk.addHandler(handler)
    sdk.setLevel(logging.WARNING)
    sdk.propagate = False
