"""Capturing a terminal's output: the full log on disk, head + tail in memory for the model.

A command may print gigabytes; the model gets about 10 KiB (the start, where usage errors appear,
and the end, where the result and the final error appear) and the path of a log file with all of it.
"""

from __future__ import annotations

import codecs
import itertools
import re
import time
from pathlib import Path
from typing import BinaryIO

from agent_tui.lazy_regex import lazy_pattern
from agent_tui.paths import state_dir
from agent_tui.state_files import private_dir, private_fd, prune_oldest

HEAD_CHARS = 4 * 1024
TAIL_CHARS = 6 * 1024
KEEP_LOGS = 100  # older terminal logs are pruned when a new one is opened
MAX_LOG_BYTES = 64 * 1024 * 1024  # a chatty server must not fill the disk
# All terminal logs together (100 full logs would be 6.4 GB): the oldest go first.
MAX_TOTAL_LOG_BYTES = 512 * 1024 * 1024

# CSI / OSC escape sequences (colours, cursor moves, titles): noise to the model, kept in the log.
_ANSI = lazy_pattern(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_log_counter = itertools.count(1)


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences and carriage-return progress redraws."""
    text = _ANSI().sub("", text)
    # "50%\r100%\n" is one line redrawn; keep what was finally shown.
    return re.sub(r"[^\n]*\r(?!\n)", "", text)


def open_log(label: str) -> tuple[Path, BinaryIO]:
    """Create ``<state dir>/logs/terminal-<time>-<label>.log`` and prune old terminal logs.

    Returns:
        The log's path and the file opened for binary writing.
    """
    folder = private_dir(state_dir() / "logs")
    prune_logs(folder)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"terminal-{stamp}-{label}-{next(_log_counter)}.log"
    return path, open(
        private_fd(path, append=False), "wb"
    )  # 0600: command output holds the user's code


def prune_logs(folder: Path) -> None:
    """Make room for one more log: at most KEEP_LOGS files and MAX_TOTAL_LOG_BYTES in all,
    counting the new one at its largest (MAX_LOG_BYTES)."""
    prune_oldest(
        folder,
        "terminal-*.log",
        keep=KEEP_LOGS,
        max_bytes=MAX_TOTAL_LOG_BYTES,
        incoming=MAX_LOG_BYTES,
    )


class OutputCapture:
    """Decodes a byte stream, writes it all to a log and keeps its head and tail.

    Args:
        log: the open log file (raw bytes go there unchanged), or None.
        head_chars: how many characters of the start to keep.
        tail_chars: how many characters of the end to keep.
        log_limit: bytes written to the log at most; then a note and nothing more.
    """

    def __init__(
        self,
        log: BinaryIO | None,
        head_chars: int = HEAD_CHARS,
        tail_chars: int = TAIL_CHARS,
        log_limit: int = MAX_LOG_BYTES,
    ) -> None:
        self._log = log
        self._log_left = log_limit
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head_chars = head_chars
        self._tail_chars = tail_chars
        self.head = ""
        self.tail = ""
        self.total_chars = 0

    def feed(self, data: bytes, *, flush: bool = False) -> str:
        """Take a chunk of raw output; return it decoded (for live display)."""
        if self._log is not None and data and self._log_left > 0:
            self._log.write(data[: self._log_left])
            self._log_left -= len(data)
            if self._log_left <= 0:
                self._log.write(b"\n[agent-tui: log size limit reached; later output not logged]\n")
            if flush:
                self._log.flush()
        text = self._decoder.decode(data)
        self._add(text)
        return text

    def finish(self) -> str:
        """Decode any bytes held back (a split UTF-8 sequence) and close the log."""
        text = self._decoder.decode(b"", final=True)
        self._add(text)
        if self._log is not None:
            self._log.close()
            self._log = None
        return text

    def _add(self, text: str) -> None:
        if not text:
            return
        if len(self.head) < self._head_chars:
            room = self._head_chars - len(self.head)
            self.head += text[:room]
            text_for_tail = text[room:]
        else:
            text_for_tail = text
        self.total_chars += len(text)
        if text_for_tail:
            self.tail = (self.tail + text_for_tail)[-self._tail_chars :]

    @property
    def truncated(self) -> bool:
        return self.total_chars > len(self.head) + len(self.tail)

    def text(self) -> str:
        """Head and tail joined, with a marker saying how much of the middle was left out."""
        if not self.truncated:
            return strip_ansi(self.head + self.tail)
        omitted = self.total_chars - len(self.head) - len(self.tail)
        head, tail = self.head, self.tail
        # Cut at line boundaries when one is near, so the model sees whole lines.
        cut = head.rfind("\n")
        if cut > len(head) // 2:
            omitted += len(head) - cut - 1
            head = head[: cut + 1]
        start = tail.find("\n")
        if 0 <= start < len(tail) // 2:
            omitted += start + 1
            tail = tail[start + 1 :]
        marker = f"\n[... {omitted:,} characters omitted; the full output is in the log ...]\n"
        return strip_ansi(head) + marker + strip_ansi(tail)

    def reset(self) -> None:
        """Forget the kept text (a background terminal's output was read by the model)."""
        self.head = ""
        self.tail = ""
        self.total_chars = 0
