"""Waiting for a slow model (issue 14.5): `-p` on a terminal says it is waiting, and the request
timeout counts from the last byte received, not from the start."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, run_cli


def env_for(tmp_path: Path, user_config: str = "") -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(user_config)
    return {
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "HOME": str(home),
        "OPENAI_API_KEY": "sk-local",
    }


def flags(fake: FakeLLM) -> list[str]:
    return ["--provider", "openai", "--base-url", fake.openai_url, "--model", "slow-model"]


def say_hi(
    tmp_path: Path, fake: FakeLLM, transport: str, user_config: str
) -> subprocess.CompletedProcess[str]:
    """``agent-tui -p hi`` over ``transport`` with ``user_config`` as ~/.agentrc."""
    return run_cli(
        tmp_path,
        *flags(fake),
        "--transport",
        transport,
        "-p",
        "hi",
        env=env_for(tmp_path, user_config),
    )


def read_until(fd: int, needle: bytes, seen: bytearray, limit_s: float = 30) -> None:
    """Read the terminal until ``needle`` shows (select's timeout only guards a hang)."""
    while needle not in seen:
        ready, _, _ = select.select([fd], [], [], limit_s)
        assert ready, f"{needle!r} never showed; the terminal had {bytes(seen)!r}"
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the other end closed
            break
        seen.extend(chunk)
    assert needle in seen, bytes(seen)


def test_p_on_a_terminal_shows_the_wait_in_place(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "Finally here."}])
    fake_llm.hold_after = 0  # the model says nothing until the test releases it
    ws = tmp_path / "ws"
    ws.mkdir()
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *flags(fake_llm), "-p", "hello"],
        cwd=ws,
        env=clean_env(env_for(tmp_path)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    seen = bytearray()
    try:
        read_until(master, "waiting for the model (prompt ≈".encode(), seen)
        # Updated in place: the same line again with the time waited, after a carriage return.
        read_until(master, " · 1 s".encode(), seen)
        fake_llm.release.set()
        out, _ = proc.communicate(timeout=60)
        while True:  # the rest of stderr
            ready, _, _ = select.select([master], [], [], 0)
            if not ready:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen.extend(chunk)
    finally:
        fake_llm.release.set()
        proc.kill()
        os.close(master)
    assert proc.returncode == 0
    assert out == "Finally here.\n"  # stdout carries the answer only
    text = seen.decode()
    assert "\r\x1b[2Kwaiting for the model" in text
    # The line is erased once the answer starts, and never written after that.
    last_wait = text.rindex("waiting for the model")
    assert "\r\x1b[2K" in text[last_wait:]
    assert "\n" not in text[last_wait:]  # one line, never a newline of its own


def test_p_without_a_terminal_prints_no_wait_line(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "ok"}])
    fake_llm.first_frame_delay_s = 0.3
    proc = run_cli(tmp_path, *flags(fake_llm), "-p", "hi", env=env_for(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "waiting" not in proc.stderr and "\r" not in proc.stderr


@pytest.mark.parametrize("transport", ["httpx", "sdk"])
def test_a_stream_longer_than_the_timeout_is_not_cut(
    tmp_path: Path, fake_llm: FakeLLM, transport: str
) -> None:
    """timeout_s is the longest silence: a reply that keeps coming may take longer in all."""
    text = "A slow but steady answer, a few words at a time, from a small local model."
    fake_llm.set_script([{"text": text}])
    fake_llm.frame_delay_s = 0.25  # every frame well inside the timeout; ~20 frames in all
    config = "[model]\ntimeout_s = 1\nmax_retries = 0\n"
    proc = say_hi(tmp_path, fake_llm, transport, config)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text + "\n"


@pytest.mark.parametrize("transport", ["httpx", "sdk"])
def test_a_silence_longer_than_the_timeout_ends_the_request(
    tmp_path: Path, fake_llm: FakeLLM, transport: str
) -> None:
    fake_llm.set_script([{"text": "never seen"}])
    fake_llm.first_frame_delay_s = 3
    config = "[model]\ntimeout_s = 0.5\nmax_retries = 0\n"
    proc = say_hi(tmp_path, fake_llm, transport, config)
    assert proc.returncode == 1
    assert "never seen" not in proc.stdout
    assert "error:" in proc.stderr
