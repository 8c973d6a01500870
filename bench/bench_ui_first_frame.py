"""First frame time: launch ``agent-tui`` (demo model, temp workspace) in a pseudo-terminal.

With ``AGENT_TUI_FIRST_FRAME_FILE=PATH`` the app writes the wall-clock time of its first refresh
to PATH and exits; the figure is that time minus the spawn time. Spawn -> exit is printed too.

    .venv/bin/python bench/bench_ui_first_frame.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import pty
import re
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.")


def launch_once(
    workspace: Path, state: Path, home: Path, args: tuple[str, ...] = ()
) -> tuple[float, float, bytes]:
    master, slave = pty.openpty()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")
    }
    env.update(
        AGENT_TUI_FIRST_FRAME_FILE=str(state / "first_frame"),
        AGENT_TUI_STATE_DIR=str(state),
        HOME=str(home),
        TERM="xterm-256color",
        COLUMNS="100",
        LINES="30",
        PYTHONPATH=str(ROOT),
    )
    spawned = time.time()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *args],
        cwd=workspace,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    output = bytearray()
    # Drain the pty so the app never blocks on a full buffer.
    while True:
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
        elif proc.poll() is not None:
            break
    proc.wait()
    elapsed = time.perf_counter() - start
    os.close(master)
    painted = float((state / "first_frame").read_text()) - spawned
    return painted, elapsed, bytes(output)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("ws", "state", "home"):
            (base / name).mkdir()
        times, totals = [], []
        for _ in range(args.runs):
            painted, elapsed, output = launch_once(base / "ws", base / "state", base / "home")
            if b"Ask anything" not in ESCAPES.sub(b"", output):  # the cursor splits the word
                print("warning: the first frame did not contain the prompt placeholder")
            times.append(painted)
            totals.append(elapsed)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - start
    print(f"first frame (spawn -> first paint), {args.runs} runs:")
    print(
        f"  min {min(times):.3f} s  median {statistics.median(times):.3f} s  max {max(times):.3f} s"
    )
    print(f"spawn -> exit (includes Textual's shutdown): median {statistics.median(totals):.3f} s")
    print(f"  (bare interpreter start: {bare:.3f} s)")


if __name__ == "__main__":
    main()
