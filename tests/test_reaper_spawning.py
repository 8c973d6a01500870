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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
async def test_a_child_started_in_its_own_session_is_not_an_adopted_orphan(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hooks, the status line, language servers and the network holder start in a session of their
    own, so by /proc they look like orphans the app adopted; one started through ``spawn_own`` is
    the app's own (its exit status is its starter's), one started otherwise is taken for an orphan.
    """
    import asyncio

    monkeypatch.setattr(subreaper, "_is_subreaper", True)
    monkeypatch.setattr(subreaper, "REAPER", subreaper.Reaper())
    argv = (sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(7)")
    pipe = asyncio.subprocess.PIPE
    own = await subreaper.spawn_own(
        asyncio.create_subprocess_exec, *argv, stdin=pipe, start_new_session=True
    )
    other = await asyncio.create_subprocess_exec(*argv, stdin=pipe, start_new_session=True)
    try:
        orphans = {p.pid for p in subreaper.adopted_orphans(subreaper.snapshot(), ())}
        assert other.pid in orphans  # the control: this is what a scan would reap once it exits
        assert own.pid not in orphans
        assert subreaper.REAPER.spawning == 0
    finally:
        for proc in (own, other):
            assert proc.stdin is not None
            proc.stdin.close()
    assert await own.wait() == 7 and await other.wait() == 7
