"""The early screen is drawn before anything heavy is imported: with the imports of the CLI, the
agent, Textual, Rich, asyncio, dataclasses, argparse and json held (they wait until released),
it still shows, takes keys, and Ctrl+C twice quits at once with the terminal given back.

This guards the figure in bench/RESULTS.md (first screen in ~40 ms): an import added to the early
path would hang here instead of slowing every start unnoticed."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HELD = "agent_tui.cli,agent_tui.agent,textual,rich,asyncio,dataclasses,argparse,json,logging"


def read_until(master: int, wanted: bytes, output: bytearray, deadline: float) -> bool:
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return wanted in output
            output += chunk
            if wanted in output:
                return True
    return wanted in output


def test_drawn_with_every_heavy_import_held_and_ctrl_c_twice_quits(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    master, slave = pty.openpty()
    before = termios.tcgetattr(slave)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "TERM": "xterm-256color",
        "COLORTERM": "truecolor",
        "PYTHONPATH": f"{ROOT / 'tests' / 'early_screen' / 'hold'}:{ROOT}",
        "EARLY_SCREEN_HOLD": HELD,
        "EARLY_SCREEN_RELEASE": str(tmp_path / "never"),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", "--provider", "scripted"],
        cwd=tmp_path / "ws",
        env=env,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        start_new_session=True,
    )
    output = bytearray()
    try:
        deadline = time.monotonic() + 30
        assert read_until(master, "○ starting".encode(), output, deadline), output
        os.write(master, "héllo".encode())
        assert read_until(master, b"llo", output, deadline), output  # echoed in the prompt row
        os.write(master, b"\x03\x03")
        assert proc.wait(timeout=30) == 0
        read_until(master, b"\x1b[?1049l", output, time.monotonic() + 5)
        assert output.rstrip().endswith(b"\x1b[?1049l")  # left the alternate screen last
        assert termios.tcgetattr(slave) == before  # the terminal's mode given back
        assert not (tmp_path / "state" / "sessions").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
        os.close(slave)
