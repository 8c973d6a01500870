"""A background terminal's output as it grows, read from its log for ``/terminals``' output view.

The terminal's log (``<state dir>/logs/terminal-….log``) holds everything the command printed (up
to its size cap), flushed chunk by chunk, so the view reads what was added since its last read.
A long log is shown from its last ``FIRST_READ`` bytes. The text is the command's, raw (colours
and all): hostile to whoever shows it.
"""

from __future__ import annotations

import codecs
import os
from pathlib import Path

from agent_tui.safe_read import open_regular

FIRST_READ = 256 * 1024  # a long log: the view starts this many bytes from its end
READ_CHUNK = 256 * 1024  # read at most this much at a time, so one read never stalls the UI


class OutputReader:
    """Reads a terminal's log from where the last read stopped.

    Args:
        log_path: the terminal's log file.
    """

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.offset = 0
        self.skipped = 0  # bytes of a long log's start the view never read
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def read(self) -> str:
        """The output added since the last read ("" when none, or the log is gone)."""
        try:
            log = open_regular(self.log_path, follow_symlinks=False)
        except OSError:
            return ""  # pruned, or never written
        with log:
            if self.offset == 0:
                size = os.fstat(log.fileno()).st_size
                self.offset = self.skipped = max(0, size - FIRST_READ)
            log.seek(self.offset)
            data = log.read(READ_CHUNK)
        self.offset += len(data)
        return self._decoder.decode(data)
