"""The log file shows control characters instead of holding them raw (issue 10 §2): ``tail -f`` on
it must not run an escape sequence a server or model put in a message."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.logs import LOG_NAME, setup_logging


@pytest.fixture
def fresh_logging(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """setup_logging() into a temp state dir; the logger is put back as it was afterwards."""
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    root = logging.getLogger("agent_tui")
    saved = (list(root.handlers), root.level, root.propagate)
    root.handlers = [h for h in root.handlers if not getattr(h, "_agent_tui", False)]
    yield tmp_path / "state" / "logs" / LOG_NAME
    for handler in root.handlers:
        handler.close()
    root.handlers, root.level, root.propagate = saved[0], saved[1], saved[2]


def test_log_lines_show_control_characters(fresh_logging: Path) -> None:
    setup_logging()
    hostile = "server said \x1b]0;pwned\x07 \x1b[2Kgone \x9b2J \u202eevil\rover"
    logging.getLogger("agent_tui.mcp.manager").warning("MCP server %s failed: %s", "x", hostile)
    for handler in logging.getLogger("agent_tui").handlers:
        handler.flush()
    data = fresh_logging.read_bytes().decode("utf-8")
    assert "server said ␛]0;pwned␇ ␛[2Kgone \\x9b2J \\u202eevil␍over" in data
    for char in ("\x1b", "\x07", "\x9b", "\u202e", "\r"):
        assert char not in data
