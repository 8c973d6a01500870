"""The workspace's trust as a front end asks about it: the stored answer, what trusting would
turn on, storing an answer, and applying it to the running session without a restart."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.front.views import TrustQuestion

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.front.mcp import Mcp


class Trust:
    def __init__(self, agent: Agent, mcp: Mcp) -> None:
        self._agent = agent
        self._mcp = mcp

    @property
    def _state_dir(self) -> Path:
        # The same state dir as the grants and the /trust command.
        return self._agent.deps.approvals.grants.path.parent

    @property
    def trusted(self) -> bool:
        """Whether the session runs with the folder's own settings."""
        return self._agent.deps.config.trusted

    def answer(self) -> bool | None:
        """The stored answer for this folder: True, False, or None (never asked)."""
        from agent_tui.approvals.trust import trust_answer

        deps = self._agent.deps
        return trust_answer(deps.workspace, self._state_dir)

    def question(self) -> TrustQuestion:
        """What trusting would turn on (empty when trusted or when the folder sets nothing)."""
        config = self._agent.deps.config
        if config.trusted:
            return TrustQuestion((), ())
        files: list[str] = []
        if self._agent.deps.mcp is not None:  # else no workspace MCP file exists
            from agent_tui.mcp.config import ignored_workspace_files

            files = ignored_workspace_files(config.workspace, trusted=config.trusted)
        return TrustQuestion(tuple(config.ignored_untrusted), tuple(files))

    def store(self, trusted: bool) -> None:
        """Remember the answer for this folder.

        Raises:
            OSError, filelock.Timeout: the state dir cannot be written.
        """
        from agent_tui.approvals.trust import set_trusted

        set_trusted(self._agent.deps.workspace, trusted, self._state_dir)

    async def apply(self, trusted: bool) -> list[str]:
        """Apply the folder's new trust to the session (settings, approvals, MCP servers, the
        model's endpoint); returns notes on what changed.

        Raises:
            AgentError: the folder's settings are invalid or the model cannot be used; nothing
                is changed.
        """
        from agent_tui.build import apply_trust

        notes = await apply_trust(self._agent, trusted)
        self._mcp.install()  # a manager created just now needs the front end's answerer
        return notes
