"""A resumed session's turns, drawn only as far as they are looked at.

An earlier turn is a :class:`TurnRow`, one line (its prompt, how many calls, its answer's first
line); Enter or a click makes it a :class:`ReplayedTurn`, the turn as the live one drew it. A
turn of many calls shows its last ``SHOWN_CALLS`` calls; the earlier ones wait behind an
:class:`EarlierCalls` line that draws them ``CALLS_BATCH`` at a time. So resuming costs what is
on screen, whatever the session's size.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.containers import Vertical
from textual.events import Click
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.front.types import LoadedSession, TurnSpan, calls_in, round_starts
from agent_tui.plural import plural
from agent_tui.text_safety import one_line, visible

if TYPE_CHECKING:
    from agent_tui.ui.render import EntrySink
    from agent_tui.ui.widgets.status_bar import StatusBar

SHOWN_CALLS = 5  # about a screenful of cards
CALLS_BATCH = 40
ROW_CHARS = 60  # of the prompt and of the answer, in a row


def row_text(span: TurnSpan) -> str:
    """``▸ fix the parser · 25 calls · Fixed: the parser…`` (and undone / interrupted)."""
    parts = [_cut(span.prompt) or "(no prompt)"]
    if span.calls:
        parts.append(plural(span.calls, "call"))
    if span.answer:
        parts.append(_cut(span.answer))
    if span.undone:
        parts.append("changes undone")
    if span.interrupted:
        parts.append("interrupted")
    return "▸ " + " · ".join(parts)


def _cut(text: str) -> str:
    line = one_line(text).strip()
    return line if len(line) <= ROW_CHARS else line[: ROW_CHARS - 1] + "…"


class Expander(Static):
    """A one-line entry that Enter or a click replaces with more."""

    DEFAULT_CSS = """
    Expander { color: $text-muted; padding: 0 1; }
    Expander:hover, Expander:focus { background: $boost; color: $text; }
    """
    can_focus = True
    BINDINGS = [("enter", "expand", "Show")]

    async def on_click(self, event: Click) -> None:
        event.stop()
        await self.action_expand()

    async def action_expand(self) -> None:
        raise NotImplementedError


class TurnRow(Expander):
    """An earlier turn in one line; expanded, the turn itself."""

    def __init__(self, session: LoadedSession, span: TurnSpan) -> None:
        super().__init__(visible(row_text(span)), markup=False)
        self.session, self.span = session, span

    async def action_expand(self) -> None:
        turn = await ReplayedTurn.made(self.session, self.span)
        await self.parent.mount(turn, after=self)  # type: ignore[union-attr]
        await self.remove()
        turn.focus_first()

    def record(self) -> Callable[[], Widget]:
        session, span = self.session, self.span
        return lambda: TurnRow(session, span)


class ReplayedTurn(Vertical):
    """One turn of ``session``, its entries made before it is mounted (``made``) or, remounted
    from its record, on mount; ``status`` gets its token counts (the last turn's only: an
    earlier turn's counts are older than the ones shown)."""

    DEFAULT_CSS = """
    ReplayedTurn { height: auto; }
    """

    def __init__(
        self,
        session: LoadedSession,
        span: TurnSpan,
        status: StatusBar | None = None,
        drawn: list[Widget] | None = None,
    ) -> None:
        super().__init__(*(drawn or ()))
        self.session, self.span, self.status = session, span, status
        self.drawn = drawn is not None

    @classmethod
    async def made(
        cls, session: LoadedSession, span: TurnSpan, status: StatusBar | None = None
    ) -> ReplayedTurn:
        """The turn with its entries made before it is mounted, so that one mount draws it
        with the rest of the first screen."""
        from agent_tui.ui.resume_flow import Collected

        sink = Collected(None)
        await cls._draw(sink, session, span, status)
        return cls(session, span, status, sink.widgets)

    async def on_mount(self) -> None:
        from agent_tui.ui.resume_flow import Collected

        if not self.drawn:
            sink = Collected(self)
            await self._draw(sink, self.session, self.span, self.status)
            await sink.flush()

    @staticmethod
    async def _draw(
        sink: EntrySink, session: LoadedSession, span: TurnSpan, status: StatusBar | None
    ) -> None:
        from agent_tui.ui.resume_flow import draw_span

        starts = round_starts(session.entries, span.start + 1, span.end)
        if len(starts) <= SHOWN_CALLS:
            await draw_span(sink, status, session, span, span.start, span.end)
            return
        tail = starts[-SHOWN_CALLS]
        await draw_span(sink, status, session, span, span.start, starts[0], last=False)
        await sink.add(EarlierCalls(session, span, starts[:-SHOWN_CALLS], tail))
        await draw_span(sink, status, session, span, tail, span.end, in_turn=True)

    def focus_first(self) -> None:
        if later := self.query(EarlierCalls):
            later.first().focus()

    def record(self) -> Callable[[], Widget]:
        session, span = self.session, self.span
        return lambda: ReplayedTurn(session, span)


class EarlierCalls(Expander):
    """The calls of a long turn not drawn yet (``starts``: where each begins; they end at
    ``end``); Enter draws the last ``CALLS_BATCH`` of them above the ones shown."""

    def __init__(self, session: LoadedSession, span: TurnSpan, starts: list[int], end: int):
        super().__init__(markup=False)
        self.session, self.span, self.starts, self.end = session, span, starts, end
        self._label()

    def _label(self) -> None:
        entries, starts = self.session.entries, self.starts
        earlier = plural(calls_in(entries, starts[0], self.end), "earlier call")
        batch = calls_in(entries, starts[-CALLS_BATCH:][0], self.end)
        self.update(f"▸ {earlier} of this turn — Enter or click to show {batch} more")

    async def action_expand(self) -> None:
        begin = self.starts[-CALLS_BATCH:][0]
        del self.starts[-CALLS_BATCH:]
        part = CallsPart(self.session, self.span, begin, self.end)
        self.end = begin
        await self.parent.mount(part, after=self)  # type: ignore[union-attr]
        if self.starts:
            self._label()
        else:
            await self.remove()


class CallsPart(Vertical):
    """Entries ``start:end`` of a long turn (some of its calls), drawn on mount."""

    DEFAULT_CSS = """
    CallsPart { height: auto; }
    """

    def __init__(self, session: LoadedSession, span: TurnSpan, start: int, end: int) -> None:
        super().__init__()
        self.session, self.span, self.start, self.end = session, span, start, end

    async def on_mount(self) -> None:
        from agent_tui.ui.resume_flow import Collected, draw_span

        sink = Collected(self)
        span = self.span
        await draw_span(
            sink, None, self.session, span, self.start, self.end, in_turn=True, last=False
        )
        await sink.flush()
