"""The file changes turns made, for ``/undo`` and ``/rewind``: which turns to undo, the prompts
to rewind to, and undoing them (asking first is the front end's: ``UndoPlan.conflicts``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.checkpoints.restore import UndoPlan, UndoReport
    from agent_tui.checkpoints.store import TurnRecord


class Changes:
    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    @property
    def run_id(self) -> str:
        """Changes when the conversation starts again (``/clear``); "" when checkpoints are off."""
        checkpoints = self._agent.deps.checkpoints
        return checkpoints.run_id if checkpoints is not None else ""

    def undo_targets(self) -> list[TurnRecord]:
        """The turn ``/undo`` reverts (none, or one)."""
        from agent_tui.checkpoints.targets import undo_targets

        return undo_targets(self._agent)

    def rewind_targets(self, index: int) -> list[TurnRecord]:
        """The turns from the prompt at message ``index`` on, newest first."""
        from agent_tui.checkpoints.targets import rewind_targets

        return rewind_targets(self._agent, index)

    def prompts(self) -> list[tuple[int, str]]:
        """The conversation's prompts as (message index, text typed), oldest first."""
        from agent_tui.checkpoints.targets import prompts

        return prompts(self._agent)

    def plan(self, records: list[TurnRecord]) -> UndoPlan:
        """What undoing ``records`` (newest first) would write, and the hand edits it would lose.

        Raises:
            AssertionError: checkpoints are off (there are no records then).
        """
        from agent_tui.checkpoints.restore import plan_undo

        checkpoints = self._agent.deps.checkpoints
        assert checkpoints is not None
        return plan_undo(records, checkpoints.workspace)

    def apply(self, plan: UndoPlan, *, overwrite: bool) -> UndoReport:
        """Undo as planned; ``overwrite`` also replaces files edited since (the conflicts)."""
        from agent_tui.checkpoints.restore import apply_undo

        return apply_undo(plan, overwrite=overwrite)

    @staticmethod
    def describe(report: UndoReport, records: list[TurnRecord]) -> str:
        """What an undo did, as Markdown."""
        from agent_tui.checkpoints.restore import describe

        return describe(report, records)
