"""The real-terminal check (scripts/tmux_check.sh): the app in tmux against the fake LLM server."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import missing

ROOT = Path(__file__).resolve().parents[2]


def test_tmux_prompt_approve_and_answer() -> None:
    if shutil.which("tmux") is None:
        missing("tmux is not installed")
    proc = subprocess.run(
        ["bash", str(ROOT / "scripts" / "tmux_check.sh")],
        cwd=ROOT,
        env={
            "PATH": "/usr/bin:/bin:/usr/local/bin",
            "PYTHON": sys.executable,
            "TERM": "xterm-256color",
        },
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tmux check: OK" in proc.stdout
