"""One shell process for run_in_terminal: spawning, output, exit, and killing its process group.

Why a SubprocessProtocol rather than ``asyncio.create_subprocess_exec``: on Python 3.11 the
high-level ``Process.wait()`` returns only once every pipe is closed, so ``server &`` inside a
command would hold the call until the server exits. The protocol tells us apart "the shell exited"
(``process_exited``) and "nobody holds the pipe any more" (``connection_lost``).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.sandbox.runtime import Launch, Sandbox
from agent_tui.subreaper import (
    REAPER,
    adopted_orphans,
    at_exit,
    descendants,
    environ_value,
    snapshot,
)
from agent_tui.tools.terminal_env import terminal_environment
from agent_tui.tools.terminal_output import OutputCapture, open_log

# Shells that understand the POSIX `trap ... EXIT` we use to learn the final working directory.
POSIX_SHELLS = frozenset({"bash", "zsh", "sh", "dash", "ksh", "mksh", "ash", "yash"})
CWD_FILE_ENV = "AGENT_TUI_CWD_FILE"
TERM_GRACE_S = 2.0  # SIGTERM, then this long for the group to exit, then SIGKILL

# Pagers and credential prompts would wait for a human who is not there.
_QUIET_ENV = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_EDITOR": "true"}


def resolve_shell(configured: str | None) -> str:
    """The shell to run commands with: config ``tools.terminal.shell``, else ``$SHELL``, else bash.

    A non-POSIX ``$SHELL`` (fish, nu) falls back to bash because models write bash; a configured
    shell is used as given (then a ``cd`` does not persist between calls).

    Raises:
        ToolError: the configured shell cannot be found.
    """
    if configured:
        found = shutil.which(configured)
        if found is None:
            raise ToolError(
                f"The configured shell {configured!r} (tools.terminal.shell) was not found; "
                "tell the user to fix that setting."
            )
        return found
    env_shell = os.environ.get("SHELL", "")
    if env_shell and Path(env_shell).name in POSIX_SHELLS and shutil.which(env_shell):
        return env_shell
    return shutil.which("bash") or "/bin/sh"


def is_posix(shell: str) -> bool:
    return Path(shell).name in POSIX_SHELLS


def group_alive(pgid: int) -> bool:
    """Whether any live (non-zombie) process is left in the process group."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # killpg(0) also succeeds for zombies, and a container's PID 1 may never reap orphans; on
    # Linux look at the members' states instead.
    if not os.path.isdir("/proc"):
        return True
    return any(p.pgid == pgid and not p.zombie for p in snapshot().values())


def signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# Every command's environment carries a token of its own: a process that left the command's
# process group (setsid, a daemon's double fork) still has it, so killing a terminal finds it.
MARKER_ENV = "AGENT_TUI_TERMINAL"


def signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


# Every shell this app started (pid, which is also its session id -> its marker), finished or not:
# what a command left behind is found through it until the app exits.
_SHELLS: dict[int, str] = {}


def command_pids(targets: dict[int, str]) -> set[int]:
    """Live processes of the commands in ``targets`` (shell pid -> marker), and escaped ones no
    other command claims.

    A command's own: its session (``start_new_session``; only among the app's descendants, since
    a session id is a pid and pids are reused), processes carrying its marker, and everything
    below those. Escaped: orphans the app adopted as a child subreaper (``env -i setsid x &``)
    that carry neither another command's session nor its marker. One /proc scan for all targets.
    """
    table = snapshot()
    if not table:
        return set()
    markers = set(targets.values())
    others = set(_SHELLS.values()) - markers
    me = os.getpid()
    roots = {pid for pid in descendants(table, [me]) if table[pid].sid in targets}
    # Every process, not only the app's: without a subreaper a setsid'd one left our tree. When
    # no command ran there is no marker to look for (and reading each environ costs a /proc open).
    for pid, proc in table.items() if markers else ():
        if not proc.zombie and environ_value(pid, MARKER_ENV) in markers:
            roots.add(pid)
    for orphan in adopted_orphans(table, _SHELLS):
        if orphan.sid in _SHELLS and orphan.sid not in targets:
            continue  # still in another command's session: dies with that one
        if environ_value(orphan.pid, MARKER_ENV) not in others:
            roots.add(orphan.pid)
    found = {pid for pid in descendants(table, roots) if not table[pid].zombie and pid != me}
    REAPER.claim(table[pid] for pid in found if pid not in _SHELLS)
    return found


def _reap() -> None:
    REAPER.scan(_SHELLS)


_CLOSING: set[asyncio.Task[None]] = set()  # proxies being closed (a task needs a reference)

# Every shell we started whose output pipe is still open: the atexit backstop kills what is left.
_LIVE: set[ShellProcess] = set()


def kill_processes(processes: list[ShellProcess], grace_s: float) -> None:
    """Kill the process groups synchronously: SIGTERM, up to ``grace_s``, then SIGKILL.

    Synchronous so it also works at interpreter exit, when no event loop runs any more.
    """
    alive = [p for p in processes if p.transport is not None and p.anything_alive()]
    for process in alive:
        process.killed = True
        process.signal_all(signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(p.anything_alive() for p in alive):
        time.sleep(0.02)
    for process in alive:
        process.signal_all(signal.SIGKILL)
        process.close_transport()
    _reap()


def kill_leftovers(grace_s: float) -> None:
    """Kill what every command of this app left running (finished ones too) and the orphans the
    app adopted: the exit path. Synchronous, like kill_processes."""
    kill_processes(list(_LIVE), grace_s)

    def leftovers() -> set[int]:
        return command_pids(dict(_SHELLS))

    pids = leftovers()
    signal_pids(pids, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while pids and time.monotonic() < deadline:
        time.sleep(0.02)
        pids = leftovers()
    signal_pids(leftovers(), signal.SIGKILL)
    _reap()


at_exit(lambda: kill_leftovers(0.5))


class ShellProcess(asyncio.SubprocessProtocol):
    """A running shell command whose stdout+stderr go to an OutputCapture (and a log file)."""

    def __init__(
        self,
        capture: OutputCapture,
        on_output: Callable[[str], None] | None,
        marker: str = "",
    ) -> None:
        self.marker = marker  # MARKER_ENV's value in this command's environment
        self.capture = capture
        self.on_output = on_output
        self.transport: asyncio.SubprocessTransport | None = None
        self.exited = asyncio.Event()  # the shell itself exited
        self.closed = asyncio.Event()  # ... and no process holds the output pipe any more
        self.killed = False
        self.started = time.monotonic()
        self.exited_at: float | None = None  # when the shell exited (time.monotonic)
        self.launch: Launch | None = None  # how it was started (inside the sandbox or not)

    # -- asyncio.SubprocessProtocol --------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.SubprocessTransport)
        self.transport = transport
        _LIVE.add(self)
        _SHELLS[transport.get_pid()] = self.marker

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        raw = data.encode() if isinstance(data, str) else data
        text = self.capture.feed(raw, flush=True)
        if text and self.on_output is not None:
            self.on_output(text)

    def process_exited(self) -> None:
        self.exited_at = time.monotonic()
        self.exited.set()

    def connection_lost(self, exc: Exception | None) -> None:
        _LIVE.discard(self)
        self.capture.finish()
        self.closed.set()
        if self.transport is not None:
            self.transport.close()
        launch = self.launch
        proxy = launch.proxy if launch is not None and not launch.token else None
        if proxy is not None:  # its own proxy: nothing inside is left to use it (PID ns gone)
            task = asyncio.get_running_loop().create_task(proxy.close())
            _CLOSING.add(task)
            task.add_done_callback(_CLOSING.discard)

    # -- ours ------------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        assert self.transport is not None
        return self.transport.get_pid()

    @property
    def returncode(self) -> int | None:
        return None if self.transport is None else self.transport.get_returncode()

    def status(self) -> str:
        """``running``, ``exited N``, or ``killed`` (by us, or by signal N)."""
        code = self.returncode
        if code is None:
            return "running"
        if self.killed:
            return "killed"
        return f"killed by signal {-code}" if code < 0 else f"exited {code}"

    def anything_alive(self) -> bool:
        """Whether any process of this command lives: in its group, or one that left it."""
        return group_alive(self.pid) or bool(command_pids({self.pid: self.marker}))

    def signal_all(self, sig: int) -> None:
        """Signal the command's process group and every process that left it."""
        signal_group(self.pid, sig)
        signal_pids(command_pids({self.pid: self.marker}), sig)

    async def terminate(self, grace_s: float = TERM_GRACE_S) -> None:
        """Kill the whole process group and any process that left it: SIGTERM, up to
        ``grace_s`` to exit, then SIGKILL."""
        if self.returncode is None or self.anything_alive():
            self.killed = True
        self.signal_all(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        # Polling: there is no event for "the last member of a process group died".
        while self.anything_alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if self.anything_alive():
            self.signal_all(signal.SIGKILL)
        await self.exited.wait()
        _reap()

    def close_transport(self) -> None:
        """Release the pipes (a closed event loop can no longer do it; then there is nothing to do)."""
        if self.transport is not None and not self.transport.is_closing():
            try:
                self.transport.close()
            except RuntimeError:
                pass  # the event loop is already closed: the OS reclaims the pipes at exit


async def spawn(
    command: str,
    *,
    shell: str,
    cwd: Path,
    label: str,
    on_output: Callable[[str], None] | None = None,
    env: dict[str, str] | None = None,
    sandbox: Sandbox | None = None,
    extra_domains: tuple[str, ...] = (),
) -> tuple[ShellProcess, Path]:
    """Start ``shell -c command`` in its own session with stdin at /dev/null.

    Args:
        env: the command's environment (terminal_env.terminal_environment); when None, the
            app's own under the default policy. Pager and marker variables are added to it.
        sandbox: the session's sandbox: inside it when it is active (``proc.launch`` says how
            it started and, through ``finish()``, what the sandbox stopped).
        extra_domains: domains the sandbox's proxy allows for this command only.

    Returns:
        The process and the path of its log file.

    Raises:
        ToolError: the shell could not be started.
    """
    log_path, log = open_log(label)
    capture = OutputCapture(log)
    # The 12 random hex digits uuid4().hex[:12] gave, without importing uuid (~1.5 ms with platform).
    marker = f"{os.getpid()}-{os.urandom(6).hex()}"
    launch = await _launch([shell, "-c", command], cwd, env, marker, sandbox, extra_domains)
    REAPER.watch(lambda: _SHELLS)
    try:
        proc = await _start(launch, cwd, lambda: ShellProcess(capture, on_output, marker))
    except OSError as exc:
        capture.finish()
        await launch.finish()
        raise ToolError(f"Could not start {shell} in {cwd}: {exc.strerror or exc}.") from exc
    proc.launch = launch
    return proc, log_path


async def _start(launch: Launch, cwd: Path, protocol: Callable[[], ShellProcess]) -> ShellProcess:
    """Start ``launch`` in its own process group (a timeout kills all of it); until the shell's
    pid is in ``_SHELLS`` (``connection_made``) the reaper leaves unknown zombies alone."""
    with REAPER.starting():
        _, proc = await asyncio.get_running_loop().subprocess_exec(
            protocol,
            *launch.argv,
            cwd=cwd,
            env=launch.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
    return proc


async def _launch(
    argv: list[str],
    cwd: Path,
    env: dict[str, str] | None,
    marker: str,
    sandbox: Sandbox | None,
    extra_domains: tuple[str, ...],
) -> Launch:
    """What to start: the command with its environment (pager and marker variables added),
    inside the sandbox when there is one."""
    full_env: dict[str, Any] = {
        **(terminal_environment(os.environ, None) if env is None else env),
        **_QUIET_ENV,
        MARKER_ENV: marker,
    }
    if sandbox is None:
        return Launch(argv, full_env, sandboxed=False)
    return await sandbox.launch(argv, cwd, full_env, extra_domains=extra_domains)
