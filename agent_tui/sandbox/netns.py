"""One network namespace for the session's sandboxed commands, holding the bridge to the proxy.

Why shared: starting a bridge in a fresh namespace for every command cost 35–75 ms a command on
this 2-core machine under load (socat's start and the wait for it to listen), three times the
15 ms the whole sandbox may add. So the namespace is made once, by a long-lived ``bwrap
--unshare-net`` whose one process is the bridge (socat, else ``bridge.py``), and each command's
bwrap joins it with ``nsenter --net`` instead of making its own. The commands of a session then
also share a loopback, as on the host: a dev server started in the background is reachable from
the test command that follows, and from nothing outside the sandbox.

Where the holder cannot start (no nsenter, a kernel that refuses), ``available`` is False and each
command gets its own namespace and bridge as before (slower, same policy).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
from pathlib import Path

from agent_tui.sandbox import bwrap
from agent_tui.subreaper import spawn_own

logger = logging.getLogger(__name__)
START_TIMEOUT_S = 5.0
_LISTEN_ROW = f"0100007F:{bwrap.PROXY_PORT:04X}"


class SharedNetwork:
    """The session's network namespace: started on first use, stopped with the session.

    Args:
        socket_path: the proxy's Unix socket the bridge forwards to.
    """

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self._holder: asyncio.subprocess.Process | None = None
        self._inner: int | None = None  # a process inside the namespace (host pid)
        self._failed = False

    @property
    def running(self) -> bool:
        return self._holder is not None and self._holder.returncode is None and self._alive()

    async def start(self) -> bool:
        """Start the holder once; False (and stay False) when it cannot run here."""
        if self.running:
            return True
        if self._failed:
            return False
        nsenter, path = shutil.which("nsenter"), bwrap.bwrap_path()
        if nsenter is None or path is None:
            self._failed = True
            return False
        argv = [path, "--die-with-parent", "--unshare-pid", "--unshare-net", "--unshare-ipc"]
        argv += ["--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        argv += ["--", "/bin/sh", "-c", bwrap.bridge_command(self.socket_path)]
        try:
            self._holder = await spawn_own(
                asyncio.create_subprocess_exec,
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
                start_new_session=True,
            )
            self._inner = await self._wait_listening()
        except (OSError, TimeoutError) as exc:
            logger.warning("sandbox network namespace did not start (%s); one per command", exc)
            self.stop()
            self._failed = True
            return False
        return True

    async def _wait_listening(self) -> int:
        """The host pid of the bridge, once it listens inside (read from the host's /proc)."""
        assert self._holder is not None
        loop = asyncio.get_running_loop()
        deadline = loop.time() + START_TIMEOUT_S
        while loop.time() < deadline:
            if self._holder.returncode is not None:
                raise OSError(f"the holder exited with {self._holder.returncode}")
            for pid in _descendants(self._holder.pid):
                if _listening(pid):
                    return pid
            await asyncio.sleep(0.002)
        raise TimeoutError("the bridge did not start listening")

    def _alive(self) -> bool:
        return self._inner is not None and os.path.exists(f"/proc/{self._inner}/ns/net")

    def enter_argv(self) -> list[str]:
        """The words that put a command into the namespace (before its own bwrap)."""
        assert self._inner is not None
        nsenter = shutil.which("nsenter") or "nsenter"
        words = [nsenter, f"--net=/proc/{self._inner}/ns/net"]
        if os.geteuid() != 0:
            # Unprivileged, the holder's bwrap made a user namespace owning that network one:
            # joining it first gives the right to join the network namespace.
            words.insert(1, f"--user=/proc/{self._inner}/ns/user")
            words.append("--preserve-credentials")
        return [*words, "--"]

    def stop(self) -> asyncio.subprocess.Process | None:
        """Kill the holder (synchronous: also at exit); returns it, to be awaited if a loop runs."""
        holder, self._holder, self._inner = self._holder, None, None
        if holder is not None and holder.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(holder.pid, signal.SIGKILL)
            return holder
        return None

    async def aclose(self) -> None:
        holder = self.stop()
        if holder is not None:
            await holder.wait()  # reaped in its own loop: no "loop is closed" at exit


def _descendants(pid: int) -> list[int]:
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        try:
            text = Path(f"/proc/{current}/task/{current}/children").read_text()
        except OSError:
            continue
        children = [int(c) for c in text.split()]
        found += children
        queue += children
    return found


def _listening(pid: int) -> bool:
    try:
        rows = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    return any(r.split()[1] == _LISTEN_ROW and r.split()[3] == "0A" for r in rows)
