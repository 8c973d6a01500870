"""Idle CPU: the app waiting for input (demo model, temp workspace) in a pseudo-terminal.

Samples the process's user+system CPU time from /proc over a window after the first frame.

    .venv/bin/python bench/bench_ui_idle.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import os
import pty
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def drain(master: int, until: float, needle: bytes = b"") -> bytes:
    seen = bytearray()
    while time.monotonic() < until:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            seen += os.read(master, 65536)
            if needle and needle in seen:
                break
    return bytes(seen)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("ws", "state", "home"):
            (base / name).mkdir()
        env = {
            k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
        }
        env.update(
            AGENT_TUI_STATE_DIR=str(base / "state"),
            HOME=str(base / "home"),
            TERM="xterm-256color",
            PYTHONPATH=str(ROOT),
        )
        master, slave = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_tui"],
            cwd=base / "ws",
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=env,
        )
        os.close(slave)
        try:
            first = drain(master, time.monotonic() + 10, b"Ask anything")
            if b"Ask anything" not in first:
                print("the app did not paint its first frame within 10 s")
                return
            drain(master, time.monotonic() + 1.0)  # let start-up work (file listing) finish
            cpu0, wall0 = cpu_seconds(proc.pid), time.monotonic()
            drain(master, wall0 + args.seconds)
            cpu = cpu_seconds(proc.pid) - cpu0
            wall = time.monotonic() - wall0
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
            os.close(master)
    print(f"idle for {wall:.1f} s: {cpu:.2f} s CPU = {cpu / wall * 100:.1f}% of one core")


if __name__ == "__main__":
    main()
