"""What the user allowed and what is still running: the remembered approvals (list, revoke) and
the background terminals (list, their output, kill)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.errors import ToolError
from agent_tui.front.terminal_output import OutputReader
from agent_tui.front.views import Killed, TerminalView

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.approvals.grants import ApprovalGrant
    from agent_tui.tools.terminal_manager import TerminalManager


class Grants:
    """The remembered approvals that apply here: this session's, this folder's, the always ones."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    def list(self) -> list[ApprovalGrant]:
        """Session first, then this workspace's, then always (read again each time: another
        instance may have changed the file)."""
        return self._agent.deps.approvals.grants.grants()

    def revoke(self, grant_id: str) -> ApprovalGrant | None:
        """Forget one grant (the next identical call is asked again); None if already gone."""
        return self._agent.deps.approvals.grants.revoke(grant_id)

    def end_session(self) -> None:
        """Forget this session's grants (a resumed session starts without them)."""
        self._agent.deps.approvals.grants.reset("session")


class Terminals:
    """The session's background terminals (commands run with ``is_background``, and those a
    command left running)."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    @property
    def _manager(self) -> TerminalManager:
        from agent_tui.tools.terminal_manager import terminal_manager

        return terminal_manager(self._agent.deps.session)

    def list(self, now: float) -> list[TerminalView]:
        """Every terminal, with how long it ran until ``now`` (monotonic seconds)."""
        return [
            TerminalView(t.terminal_id, t.status(), t.ran_for(now), t.command, t.log_path)
            for t in self._manager.terminals()
        ]

    def output(self, terminal_id: str) -> OutputReader | None:
        """A reader of the terminal's output as it grows (from its log); None when no such
        terminal exists."""
        try:
            terminal = self._manager.get(terminal_id)
        except ToolError:
            return None
        return OutputReader(terminal.log_path)

    async def kill(self, terminal_id: str) -> Killed | None:
        """Kill a terminal's whole process group, as the kill_terminal tool does; None when no
        such terminal exists."""
        try:
            terminal = self._manager.get(terminal_id)
        except ToolError:
            return None
        was_running = terminal.running or terminal.process.anything_alive()
        await self._manager.kill(terminal_id)
        return Killed(was_running, terminal.status())
