"""Background terminals of a session: started by run_in_terminal, read and killed by id.

The app calls ``TerminalManager.kill_all()`` (or awaits ``aclose()``) on exit; an atexit hook in
terminal_process kills whatever is left as a backstop, so no background server outlives agent-tui.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState
from agent_tui.tools.terminal_process import ShellProcess, group_alive, kill_processes

EXTRAS_KEY = "terminals"
EXIT_GRACE_S = 0.5  # at exit, SIGTERM then this long before SIGKILL


@dataclass
class BackgroundTerminal:
    """A command that keeps running after its tool call returned."""

    terminal_id: str
    command: str
    cwd: Path
    process: ShellProcess
    log_path: Path

    def status(self) -> str:
        """``running``, ``exited N`` or ``killed``; says when children still hold the output."""
        status = self.process.status()
        if self.process.returncode is not None and not self.process.closed.is_set():
            status += " (processes it started are still running)"
        return status

    @property
    def running(self) -> bool:
        return not self.process.closed.is_set()

    def ran_for(self, now: float) -> float:
        """Seconds from its start until its shell exited, or until ``now`` (monotonic) if not yet."""
        end = self.process.exited_at
        return (now if end is None else end) - self.process.started

    def read_new(self) -> tuple[str, bool]:
        """Output since the last read (head + tail when long) and whether it was cut."""
        capture = self.process.capture
        text, truncated = capture.text(), capture.truncated
        capture.reset()
        return text, truncated


class TerminalManager:
    """The background terminals of one session."""

    def __init__(self) -> None:
        self._terminals: dict[str, BackgroundTerminal] = {}
        self._ids = itertools.count(1)

    def add(
        self, command: str, cwd: Path, process: ShellProcess, log_path: Path
    ) -> BackgroundTerminal:
        """Register a running process and give it a terminal id."""
        terminal = BackgroundTerminal(f"term-{next(self._ids)}", command, cwd, process, log_path)
        self._terminals[terminal.terminal_id] = terminal
        return terminal

    def get(self, terminal_id: str) -> BackgroundTerminal:
        """Look a terminal up by id.

        Raises:
            ToolError: no terminal has that id (the message lists the ones that exist).
        """
        terminal = self._terminals.get(str(terminal_id).strip())
        if terminal is None:
            known = ", ".join(self._terminals) or "none"
            raise ToolError(
                f"No terminal {terminal_id!r} (known: {known}). Use the terminal_id that "
                "run_in_terminal returned for a command run with is_background=true."
            )
        return terminal

    def terminals(self) -> list[BackgroundTerminal]:
        return list(self._terminals.values())

    async def kill(self, terminal_id: str) -> BackgroundTerminal:
        """Kill a terminal's whole process group and wait until it is gone.

        Raises:
            ToolError: unknown terminal id.
        """
        terminal = self.get(terminal_id)
        # Finished and its pipe closed, it may still have left processes running (nohup x &).
        if terminal.running or terminal.process.anything_alive():
            await terminal.process.terminate()
        return terminal

    def kill_all(self) -> None:
        """Kill every background terminal's process group (synchronous: safe at app exit)."""
        kill_processes([t.process for t in self._terminals.values()], EXIT_GRACE_S)

    async def aclose(self) -> None:
        """Kill every background terminal and wait until each has exited (the app's exit path)."""
        for terminal in self._terminals.values():
            if terminal.process.transport is not None and (
                terminal.running or group_alive(terminal.process.pid)
            ):
                await terminal.process.terminate(EXIT_GRACE_S)
            terminal.process.close_transport()


def terminal_manager(session: SessionState) -> TerminalManager:
    """The session's terminal manager (``session.extras["terminals"]``), created on first use."""
    manager = session.extras.get(EXTRAS_KEY)
    if not isinstance(manager, TerminalManager):
        manager = TerminalManager()
        session.extras[EXTRAS_KEY] = manager
    return manager
