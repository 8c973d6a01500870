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


def test_the_log_rotates_by_size_keeping_private_backups(tmp_path: Path) -> None:
    """The app's own rotating handler (no logging.handlers on the start-up path) rotates as the
    standard one: the file stays under the limit, ``.1`` is the newest backup, the oldest goes."""
    import stat

    from agent_tui.logs import PrivateRotatingLog

    path = tmp_path / "logs" / LOG_NAME
    path.parent.mkdir()
    handler = PrivateRotatingLog(path, max_bytes=100, backups=2)
    logger = logging.Logger("rotation-test")
    logger.addHandler(handler)
    for number in range(12):
        logger.warning("record %02d %s", number, "x" * 30)  # 41 bytes a line: two to a file
    handler.close()
    assert sorted(p.name for p in path.parent.iterdir()) == [
        LOG_NAME,
        f"{LOG_NAME}.1",
        f"{LOG_NAME}.2",
    ]
    kept = [(path.parent / f"{LOG_NAME}{suffix}").read_text() for suffix in (".2", ".1", "")]
    lines = "".join(kept).splitlines()
    assert [line[:9] for line in lines] == [f"record {n:02d}" for n in range(6, 12)]
    assert all(len(text.encode()) < 100 for text in kept)
    for file in path.parent.iterdir():
        assert stat.S_IMODE(file.stat().st_mode) == 0o600


def test_a_log_that_cannot_rotate_goes_quiet_with_one_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui import state_files

    monkeypatch.setattr(state_files, "_failed_writes", set())  # said once a process: not yet
    from agent_tui.logs import PrivateRotatingLog

    path = tmp_path / "logs" / LOG_NAME
    path.parent.mkdir()
    handler = PrivateRotatingLog(path, max_bytes=50, backups=1)
    logger = logging.Logger("rotation-test")
    logger.addHandler(handler)
    (path.parent / f"{LOG_NAME}.1").mkdir()  # the rename onto it fails: a folder is in the way
    (path.parent / f"{LOG_NAME}.1" / "keep").write_text("")
    state_files.take_notices()
    logger.warning("%s", "y" * 60)
    logger.warning("%s", "z" * 60)
    handler.close()
    assert handler.broken
    notices = [n for n in state_files.take_notices() if "the log" in n]
    assert len(notices) == 1 and "logging is off for this run" in notices[0]
