"""The app as a child subreaper (Linux): processes that escape a command are adopted, then found.

A command can leave its process group and session (``setsid``), drop the token in its environment
(``env -i``) and lose its parent (``nohup x &``, a double fork): then nothing ties it to the command
any more, and it used to outlive the app under PID 1. With ``prctl(PR_SET_CHILD_SUBREAPER)`` such
orphans are reparented to the app instead, so ``/proc`` shows them as the app's children.

Not every child of the app is an orphan: git, rg and other helpers run in the app's own session,
stdio MCP servers in a session of their own (marked with ``SERVER_MARKER_ENV``), terminal shells are
known by pid. Everything else among the app's children was adopted, and dies with the next killed
terminal and at exit.

Reaping: a subreaper must ``wait()`` for the orphans it adopts, or their zombies pile up. A plain
``waitpid(-1)`` would steal the exit status of children asyncio's child watcher and ``subprocess``
are waiting for, so only two kinds of zombie are reaped, each with ``waitpid(pid, WNOHANG)``: a pid
seen alive as an adopted orphan or as a terminal command's process, and a zombie nobody reaped
since the previous scan (our own children's waiters block in ``waitpid(pid)`` and collect theirs
at once). Scans run on SIGCHLD (once a terminal has started in that event loop), when a terminal
is killed, and at exit.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import logging
import os
import signal
import sys
import weakref
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>
# Set in every stdio MCP server's environment (mcp/adapter.py), so a server and what it starts are
# never taken for an orphan of a terminal command.
SERVER_MARKER_ENV = "AGENT_TUI_MCP_SERVER"
RESCAN_S = 1.0  # a zombie left after a scan is looked at again this much later

_is_subreaper = False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux; elsewhere a no-op).

    Returns:
        Whether the process is now a child subreaper.
    """
    global _is_subreaper
    if not sys.platform.startswith("linux") or _is_subreaper:
        return _is_subreaper
    try:
        ok = bool(_libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        ok = False
    if not ok:
        logger.warning("prctl(PR_SET_CHILD_SUBREAPER) failed; escaped processes may outlive us")
    _is_subreaper = ok
    return ok


def _libc() -> ctypes.CDLL:
    """The C library, for prctl."""
    # The interpreter's own symbols include libc's (dlopen(NULL)). find_library("c") would run
    # `ldconfig -p`, a process and ~5 ms before the first request; only a build without a
    # dynamic libc needs it.
    own = ctypes.CDLL(None, use_errno=True)
    if hasattr(own, "prctl"):
        return own
    from ctypes.util import find_library  # here: it imports tempfile and random (~3 ms a start)

    return ctypes.CDLL(find_library("c") or "libc.so.6", use_errno=True)


def is_subreaper() -> bool:
    return _is_subreaper


_exit_cleanups: list[Callable[[], None]] = []


def at_exit(cleanup: Callable[[], None]) -> None:
    """Run ``cleanup`` when the app exits, also when SIGTERM or SIGHUP (its terminal closed) ends
    it: Python's default for those skips atexit, and what commands left running would survive."""
    atexit.register(cleanup)
    _exit_cleanups.append(cleanup)


def _die_cleanly(signum: int, frame: object) -> None:
    die_cleanly(signum)


def die_cleanly(signum: int) -> None:
    """Run the at_exit() cleanups, then end as ``signum`` would have (the status a parent
    expects: killed by that signal)."""
    for cleanup in _exit_cleanups:
        cleanup()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def clean_up_on_signals() -> None:
    """Install the SIGTERM/SIGHUP handlers for at_exit() cleanups (main thread, at start-up)."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _die_cleanly)


@dataclass(frozen=True)
class Proc:
    """One line of /proc/<pid>/stat, the fields we use."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start: int  # start time in clock ticks since boot: tells a reused pid apart

    @property
    def zombie(self) -> bool:
        return self.state in ("Z", "X")


def snapshot() -> dict[int, Proc]:
    """Every process in /proc (empty where there is no /proc)."""
    table: dict[int, Proc] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if name.isdigit() and (proc := read_stat(int(name))) is not None:
            table[proc.pid] = proc
    return table


def read_stat(pid: int) -> Proc | None:
    """The process's /proc/<pid>/stat line, the fields we use (None: gone, or no /proc)."""
    # os.read, not open(): a third faster, and a scan reads every process on the machine (at
    # exit, and on each SIGCHLD once a command ran). One read gets it all: procfs hands a read
    # the whole file when it fits, and a stat line is well under 4096 bytes.
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        stat = os.read(fd, 4096).decode("ascii", errors="replace")
    except OSError:
        return None
    finally:
        os.close(fd)
    # After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt
    # cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime ...
    fields = stat[stat.rfind(")") + 2 :].split()
    if len(fields) < 20:
        return None
    return Proc(pid, int(fields[1]), int(fields[2]), int(fields[3]), fields[0], int(fields[19]))


def environ_value(pid: int, name: str) -> str | None:
    """The value of ``name`` in a live process's environment (None: unset, gone, or a zombie)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as fh:
            environ = fh.read()
    except OSError:
        return None
    prefix = name.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode(errors="replace")
    return None


def descendants(table: dict[int, Proc], roots: Iterable[int]) -> set[int]:
    """``roots`` and every process below them."""
    children: dict[int, list[int]] = {}
    for proc in table.values():
        children.setdefault(proc.ppid, []).append(proc.pid)
    found: set[int] = set()
    stack = [pid for pid in roots if pid in table]
    while stack:
        pid = stack.pop()
        if pid not in found:
            found.add(pid)
            stack.extend(children.get(pid, ()))
    return found


def adopted_orphans(table: dict[int, Proc], shells: Collection[int]) -> list[Proc]:
    """The app's children it did not start: orphans reparented to it (alive or zombie).

    Args:
        table: a snapshot().
        shells: pids of the terminal shells the app started (its children, not orphans).
    """
    if not _is_subreaper:
        return []  # nothing is adopted: every child is one the app started
    me = os.getpid()
    own_sid = os.getsid(0)
    orphans = []
    for proc in table.values():
        if proc.ppid != me or proc.pid in shells or proc.sid == own_sid:
            continue
        if _own_children.get(proc.pid) == proc.start:
            continue  # started by the app in a session of its own; its starter waits for it
        if not proc.zombie and environ_value(proc.pid, SERVER_MARKER_ENV) is not None:
            continue  # an MCP server (or what it started): stopped by its own session's exit
        orphans.append(proc)
    return orphans


class Reaper:
    """Collects the exit status of adopted orphans, never of a child someone else waits for."""

    def __init__(self) -> None:
        # (pid, start time) of processes known to come from terminal commands: seen alive as
        # adopted orphans, or found as a command's processes (claim()).
        self._known: set[tuple[int, int]] = set()
        self._seen_zombie: set[tuple[int, int]] = set()
        # Event loops with our SIGCHLD handler (weak: a closed loop drops its handlers).
        self._loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
        self._rescan: asyncio.TimerHandle | None = None
        # Spawns under way: until the new child's pid is known (a shell's, once asyncio's
        # subprocess_exec returns), a zombie of it would look adopted. Reaping it then steals the
        # exit status from asyncio's child watcher, which reports 255: seen for a fast `git
        # status` under load. While a spawn runs, unknown zombies are only remembered.
        self.spawning = 0

    @contextlib.contextmanager
    def starting(self) -> Iterator[None]:
        """Around a spawn: until the child's pid is known, unknown zombies are only remembered."""
        self.spawning += 1
        try:
            yield
        finally:
            self.spawning -= 1

    def claim(self, procs: Iterable[Proc]) -> None:
        """Remember processes of terminal commands: nobody but us will wait for them."""
        if _is_subreaper:
            self._known.update((proc.pid, proc.start) for proc in procs if not proc.zombie)

    def scan(self, shells: Collection[int]) -> bool:
        """Reap what may be reaped; remember the rest. Returns whether zombies were left."""
        if not _is_subreaper:
            return False
        table = snapshot()
        self._known &= {(proc.pid, proc.start) for proc in table.values()}
        zombies: set[tuple[int, int]] = set()
        for proc in adopted_orphans(table, shells):
            key = (proc.pid, proc.start)
            if not proc.zombie:
                self._known.add(key)
            elif not self.spawning and (key in self._known or key in self._seen_zombie):
                self._reap(proc.pid)
                self._known.discard(key)
            else:
                zombies.add(key)
        self._seen_zombie = zombies
        return bool(zombies)

    @staticmethod
    def _reap(pid: int) -> None:
        with contextlib.suppress(ChildProcessError):  # someone else was first: fine
            os.waitpid(pid, os.WNOHANG)

    def watch(self, shells: Callable[[], Collection[int]]) -> None:
        """Scan on SIGCHLD in the running event loop (once per loop; main thread only)."""
        if not _is_subreaper:
            return
        loop = asyncio.get_running_loop()
        if loop in self._loops:
            return

        def on_sigchld() -> None:
            if self.scan(shells()) and (self._rescan is None or self._rescan.cancelled()):
                self._rescan = loop.call_later(RESCAN_S, rescan)

        def rescan() -> None:
            self._rescan = None
            on_sigchld()

        try:
            loop.add_signal_handler(signal.SIGCHLD, on_sigchld)
        except (ValueError, RuntimeError, NotImplementedError):
            return  # not the main thread: scans still run on kill and at exit
        self._loops.add(loop)


REAPER = Reaper()

# Children the app starts in a session of their own besides terminal commands (hooks, the status
# line, language servers, the network namespace holder): pid -> start time, so a reused pid is not
# taken for one. Their exit status belongs to whoever started them (asyncio's child watcher).
_own_children: dict[int, int] = {}


async def spawn_own(
    start: Callable[..., Awaitable[asyncio.subprocess.Process]], *args: Any, **kwargs: Any
) -> asyncio.subprocess.Process:
    """``await start(*args, **kwargs)`` (``asyncio.create_subprocess_exec`` or ``_shell``) for a
    child in its own session, never reaped as an adopted orphan: while it is being started the
    reaper leaves unknown zombies alone (a fast child can exit before its pid is known), and
    afterwards its pid is the app's own."""
    with REAPER.starting():
        process = await start(*args, **kwargs)
        if (proc := read_stat(process.pid)) is not None:
            _own_children[process.pid] = proc.start
        return process
