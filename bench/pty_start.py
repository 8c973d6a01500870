"""Time a terminal app from its spawn to its prompt on screen, under a pseudo-terminal.

Used by ``bench_vs_codex.py`` (case ``start``) for agent-tui's and Codex's TUIs alike: the app runs
in a 100x30 pty as in a terminal; the terminal's answers to what apps ask of it at start (cursor
position, device attributes, foreground and background colours) are sent back at once, as a real
terminal does, so neither app waits out a timeout. The clock stops when the text the app shows in
its empty prompt (``marker``) has been drawn; the app's process group is then killed and its CPU
time and peak RSS read from the kernel's accounting of the child.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ROWS, COLUMNS = 30, 100
# Escape sequences (CSI, OSC, charset choice, two-byte ones) taken out of the drawn text.
_ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Z]|\x1b."
)
# What a terminal answers to the queries apps send at start.
_ANSWERS = {
    b"\x1b[6n": f"\x1b[{ROWS};1R".encode(),  # cursor position
    b"\x1b[c": b"\x1b[?62;22c",  # primary device attributes
    b"\x1b]10;?": b"\x1b]10;rgb:d0d0/d0d0/d0d0\x1b\\",  # foreground colour
    b"\x1b]11;?": b"\x1b]11;rgb:1010/1010/1010\x1b\\",  # background colour
}


@dataclass
class Start:
    spawned: float  # time.time() at the spawn
    prompt_s: float  # spawn -> the prompt drawn
    cpu_s: float  # user + system CPU until killed just after
    peak_mib: float


def time_to_prompt(argv: list[str], env: dict[str, str], cwd: Path, marker: str) -> Start:
    """Run ``argv`` in a pty until ``marker`` is on screen (see the module docstring).

    Raises:
        SystemExit: the app exited, or showed no prompt within 30 s (with what it drew).
    """
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {**env, "TERM": "xterm-256color", "COLUMNS": str(COLUMNS), "LINES": str(ROWS)}
    spawned = time.time()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True
    )
    os.close(slave)
    drawn = bytearray()
    prompt_s = None
    wanted = marker.encode()
    try:
        while prompt_s is None and time.perf_counter() - t0 < 30:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break  # the app exited: its side of the pty closed
            for query, answer in _ANSWERS.items():
                if query in chunk:
                    os.write(master, answer)
            drawn += chunk
            if wanted in _ESCAPES.sub(b"", bytes(drawn)):
                prompt_s = time.perf_counter() - t0
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = -signal.SIGKILL
        os.close(master)
    if prompt_s is None:
        text = _ESCAPES.sub(b"", bytes(drawn)).decode(errors="replace")[-1500:]
        raise SystemExit(f"{argv[0]}: no {marker!r} on screen: {text}")
    return Start(spawned, prompt_s, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
