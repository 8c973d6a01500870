"""A full disk or a damaged state dir printed tracebacks (issue 22 item 5): now one line each, the
answer still comes, and nothing half-written is left.

Real ``agent-tui -p`` processes against the fake server. The full disk is a real 64 KiB tmpfs,
filled first; the read-only state dir a read-only tmpfs (both need mount rights: skipped, saying
so, where the tests run without them).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_fake

TIMEOUT = 60


def mount_tmpfs(folder: Path, options: str) -> None:
    folder.mkdir(exist_ok=True)
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {proc.stderr.strip()}")


@pytest.fixture
def mounted(tmp_path: Path) -> Iterator[list[Path]]:
    """Mount points to unmount after the test."""
    points: list[Path] = []
    yield points
    for point in points:
        subprocess.run(["umount", "-l", str(point)], check=False)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"a.txt": "old\n"}, home=True)


def run(ws: Path, fake: FakeLLM, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_on_fake(ws, fake, *args, home=ws.parent / "home", state=state, timeout=TIMEOUT)


def assert_calm(proc: subprocess.CompletedProcess[str], *problems: str) -> None:
    """Exit 0, the answer printed, no traceback, and each problem said on exactly one line."""
    assert proc.returncode == 0, proc.stderr
    assert "answer-ok" in proc.stdout
    assert "Traceback" not in proc.stderr and "Logging error" not in proc.stderr, proc.stderr
    lines = proc.stderr.splitlines()
    for problem in problems:
        assert sum(problem in line for line in lines) == 1, proc.stderr


def leftovers(state: Path) -> list[str]:
    """Temp files, and session files that are empty or end mid-line."""
    found = []
    for path in state.rglob("*"):
        if path.name.endswith(".tmp"):
            found.append(str(path))
        elif path.suffix == ".jsonl" and path.is_file():
            data = path.read_bytes()
            if not data or not data.endswith(b"\n"):
                found.append(str(path))
            else:
                for line in data.splitlines():
                    json.loads(line)
    return found


def test_full_disk_state_dir_prints_one_line_per_problem_not_tracebacks(
    ws: Path, fake_llm: FakeLLM, tmp_path: Path, mounted: list[Path]
) -> None:
    state = tmp_path / "full"
    mount_tmpfs(state, "size=64k")
    mounted.append(state)
    fake_llm.set_script([{"text": "answer-ok"}])
    fd = os.open(state / "filler", os.O_WRONLY | os.O_CREAT)
    try:  # fill it, leaving no room for anything
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:
        pass
    finally:
        os.close(fd)
    proc = run(ws, fake_llm, state, "-p", "hello")
    assert_calm(proc, "cannot save the session", "cannot save the log")
    assert "No space left on device" in proc.stderr
    assert leftovers(state) == []
    assert "hello" in json.dumps(fake_llm.requests[0])


@pytest.mark.parametrize("name", ["sessions", "logs", "checkpoints"])
def test_state_subfolder_made_a_file_is_one_line_and_the_turn_goes_on(
    ws: Path, fake_llm: FakeLLM, tmp_path: Path, name: str
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / name).write_text("not a folder\n")
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "e", "name": "create_file", "input": {
                "path": "new.txt", "content": "made\n"}}]},
            {"text": "answer-ok"},
        ]
    )  # fmt: skip
    proc = run(ws, fake_llm, state, "-p", "hello", "--allow-tool", "create_file")
    what = {"sessions": "the session", "logs": "the log", "checkpoints": "checkpoints"}[name]
    assert_calm(proc, f"cannot save {what}")
    assert f"{state / name}: it is a file, not a folder" in proc.stderr
    assert (ws / "new.txt").read_text() == "made\n"  # the edit itself went through
    assert (state / name).read_text() == "not a folder\n"  # the file was left alone
    assert leftovers(state) == []


def test_read_only_state_dir_says_so_once_and_answers(
    ws: Path, fake_llm: FakeLLM, tmp_path: Path, mounted: list[Path]
) -> None:
    state = tmp_path / "ro"
    mount_tmpfs(state, "ro,size=64k")
    mounted.append(state)
    fake_llm.set_script([{"text": "answer-ok"}])
    proc = run(ws, fake_llm, state, "-p", "hello")
    assert_calm(proc, "cannot save anything in the state dir")
    assert "Read-only file system" in proc.stderr
    assert "cannot save the session" not in proc.stderr  # said once, for the whole dir
    assert list(state.iterdir()) == []


def test_session_write_failure_keeps_earlier_session_whole(
    ws: Path, fake_llm: FakeLLM, tmp_path: Path, mounted: list[Path]
) -> None:
    state = tmp_path / "small"
    mount_tmpfs(state, "size=256k")
    mounted.append(state)
    fake_llm.set_script([{"text": "first answer-ok"}, {"text": "answer-ok " + "x" * 300_000}])
    assert run(ws, fake_llm, state, "-p", "hello").returncode == 0
    proc = run(ws, fake_llm, state, "-p", "again", "--continue")
    assert_calm(proc, "cannot save the session")
    assert leftovers(state) == []  # the resumed file has no torn last line
