"""subreaper.snapshot() reads /proc/<pid>/stat right, whatever a process calls itself."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agent_tui.subreaper import snapshot

# The child renames itself (prctl PR_SET_NAME, 15 bytes at most) to a name holding ") (", a
# digit field look-alike and non-ASCII bytes, then waits for stdin to close.
RENAME = """
import ctypes, sys
ctypes.CDLL(None).prctl(15, b") (Z 1 \\xc3\\xa9)", 0, 0, 0)
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_snapshot_parses_a_process_whose_name_mimics_stat_fields() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", RENAME],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == b"ready\n"
        with open(f"/proc/{child.pid}/comm", "rb") as fh:
            assert fh.read().startswith(b") (Z 1")
        table = snapshot()
        proc = table[child.pid]
        assert (proc.ppid, proc.pgid, proc.sid) == (os.getpid(), child.pid, child.pid)
        assert proc.state in ("S", "R") and not proc.zombie
        assert proc.start >= table[os.getpid()].start
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=30)
    # Exited and reaped: gone from the next snapshot.
    assert child.pid not in snapshot()
