"""A sub-agent's run, drawn under its run_agent card: open while it works, collapsed when done."""

from __future__ import annotations

from textual.widget import Widget
from textual.widgets import Collapsible

from agent_tui.text_safety import visible


class SubagentCard(Collapsible):
    """A collapsible card holding a sub-agent's entries (its tool cards and answer).

    It is the ``EntrySink`` of the sub-run's ``TurnView``.
    """

    DEFAULT_CSS = """
    SubagentCard { margin: 0 0 0 4; border-left: solid $accent; }
    """

    def __init__(self, agent: str) -> None:
        super().__init__(title=f"agent {visible(agent)}", collapsed=False)
        self.agent = agent

    async def add(self, widget: Widget) -> Widget:
        """Mount ``widget`` at the end of the card's contents."""
        await self.query_one(Collapsible.Contents).mount(widget)
        return widget

    def finish(self, failed: bool) -> None:
        """The sub-run ended: fold it away (its answer is the run_agent card's result)."""
        self.title = f"agent {visible(self.agent)} {'failed' if failed else 'done'}"
        self.collapsed = True
