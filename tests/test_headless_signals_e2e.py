"""`-p --output-format json|stream-json` stopped by a signal (issue 28.7): a script that wraps the
run in ``timeout`` (SIGTERM) or is interrupted (SIGINT) still gets the result object, with the
session id, what was answered so far and a status saying how the run ended."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env


def start(tmp_path: Path, fake: FakeLLM, fmt: str) -> subprocess.Popen[bytes]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    env = {"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "HOME": str(home), "OPENAI_API_KEY": "k"}
    flags = ["--provider", "openai", "--base-url", fake.openai_url, "--model", "m"]
    return subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *flags, "-p", "hi", "--output-format", fmt],
        cwd=ws,
        env=clean_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for_stream(fake: FakeLLM, proc: subprocess.Popen[bytes]) -> None:
    """Until the model's answer has started (the server is holding the rest of it)."""
    deadline = time.monotonic() + 60
    while not fake.requests and time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.02)  # a poll with a deadline
    assert fake.requests, "the run never asked the model"


@pytest.mark.parametrize(
    ("signum", "status", "code"),
    # SIGTERM: the process still ends by the signal (the parent sees it); SIGINT: exit 130.
    [(signal.SIGTERM, "terminated", -signal.SIGTERM), (signal.SIGINT, "interrupted", 130)],
)
def test_a_stopped_json_run_still_prints_its_result(
    tmp_path: Path, fake_llm: FakeLLM, signum: int, status: str, code: int
) -> None:
    fake_llm.set_script([{"text": "The first half of an answer, and the rest never comes."}])
    fake_llm.hold_after = 2
    proc = start(tmp_path, fake_llm, "json")
    try:
        wait_for_stream(fake_llm, proc)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        fake_llm.release.set()
        proc.kill()
    assert proc.returncode == code, err
    result = json.loads(out.decode().splitlines()[-1])
    assert result["status"] == status
    assert result["exit_code"] == (128 - code if code < 0 else code) and result["is_error"] is True
    assert result["session_id"]
    session_files = list((tmp_path / "state").rglob(f"{result['session_id']}*.jsonl"))
    assert session_files, "the id names the session a script can --resume"
    assert status in err.decode()


def test_a_stopped_stream_json_run_ends_with_the_result_line(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "Streaming along until the supervisor stops the run."}])
    fake_llm.hold_after = 2
    proc = start(tmp_path, fake_llm, "stream-json")
    assert proc.stdout is not None
    seen = b""
    try:
        deadline = time.monotonic() + 60
        while b'"text_delta"' not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1)
            if ready:
                seen += os.read(proc.stdout.fileno(), 4096)
        assert b'"text_delta"' in seen, seen  # part of the answer was printed as it streamed
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=60)
    finally:
        fake_llm.release.set()
        proc.kill()
    lines = (seen + out).decode().splitlines()
    result = json.loads(lines[-1])
    assert result["type"] == "result" and result["status"] == "terminated"
    assert result["result"].startswith("Streaming"), lines  # what was answered before the stop
    assert proc.returncode == -signal.SIGTERM


def test_a_run_that_ends_by_itself_says_completed(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "done"}])
    proc = start(tmp_path, fake_llm, "json")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert json.loads(out.decode().splitlines()[-1])["status"] == "completed"
