"""The subreaper leaves alone a zombie while a spawn is under way: until asyncio's
``subprocess_exec`` returns, a new shell's pid is not yet known as one of the app's shells, and
reaping it stole the exit status from asyncio's child watcher (which then reports 255)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from agent_tui import subreaper


def _zombie() -> subprocess.Popen[bytes]:
    child = subprocess.Popen(["true"], start_new_session=True)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        proc = subreaper.snapshot().get(child.pid)
        if proc is not None and proc.zombie:
            return child
        time.sleep(0.01)
    raise AssertionError("the child did not become a zombie")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_zombie_seen_while_spawning_is_not_reaped_and_is_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subreaper, "_is_subreaper", True)
    reaper = subreaper.Reaper()
    child = _zombie()
    reaper.spawning = 1
    assert reaper.scan(shells=()) and reaper.scan(shells=())  # twice: it would be reaped now
    assert os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    reaper.spawning = 0
    reaper.scan(shells=())  # no spawn under way: an unknown zombie seen before is reaped
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
