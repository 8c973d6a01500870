"""An earlier turn of a resumed session, drawn only when the user asks to see it.

The transcript keeps it as a record behind its "▲ earlier entries — click to show" bar; mounted, it
decodes its slice of the session file and draws it with the live turn's ``TurnView``.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.containers import Vertical
from textual.widget import Widget

from agent_tui.front.types import LoadedSession


class ReplayedTurn(Vertical):
    """Entries ``start:end`` of ``session`` (one turn), drawn on mount."""

    DEFAULT_CSS = """
    ReplayedTurn { height: auto; }
    """

    def __init__(self, session: LoadedSession, start: int, end: int) -> None:
        super().__init__()
        self.session, self.start, self.end = session, start, end

    async def add(self, widget: Widget) -> Widget:
        await self.mount(widget)
        return widget

    async def on_mount(self) -> None:
        from agent_tui.ui.resume_flow import draw_entries

        # No status bar: this turn's token counts are older than the ones shown.
        await draw_entries(self, None, self.session.drawable(self.start, self.end))

    def record(self) -> Callable[[], Widget]:
        session, start, end = self.session, self.start, self.end
        return lambda: ReplayedTurn(session, start, end)
