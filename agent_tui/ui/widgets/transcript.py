"""The scrolling transcript. Only the last ``max_mounted`` entries are widgets; older ones are kept
as records (cheap closures) behind a "show earlier" bar that mounts them again on demand, so memory
and frame time stay flat over thousands of messages.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

DEFAULT_MAX_MOUNTED = 120
REMOUNT_BATCH = 40


class Entry(Protocol):
    def record(self) -> Callable[[], Widget]: ...


class EarlierBar(Static):
    """Click (or Enter) to mount older entries again."""

    DEFAULT_CSS = """
    EarlierBar { color: $text-muted; text-style: italic; padding: 0 1; display: none; }
    EarlierBar:hover, EarlierBar:focus { background: $boost; }
    """
    can_focus = True
    BINDINGS = [("enter", "show_earlier", "Show earlier")]

    class Pressed(Message):
        """The user asked for older entries."""

    def on_click(self, event: Click) -> None:
        event.stop()
        self.post_message(self.Pressed())

    def action_show_earlier(self) -> None:
        self.post_message(self.Pressed())


class Transcript(VerticalScroll):
    """Append entries with ``add()``; the oldest ones are pruned to records past the limit."""

    DEFAULT_CSS = """
    Transcript { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """

    def __init__(self, max_mounted: int = DEFAULT_MAX_MOUNTED, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.max_mounted = self.base_max_mounted = max_mounted
        self.hidden: list[Callable[[], Widget]] = []  # oldest first
        self._bar = EarlierBar()

    def compose(self) -> ComposeResult:
        yield self._bar

    def on_mount(self) -> None:
        self.anchor()  # stay at the bottom while content streams in, until the user scrolls up

    @property
    def entries(self) -> list[Widget]:
        return [w for w in self.children if w is not self._bar]

    async def add(self, widget: Widget) -> Widget:
        """Mount ``widget`` at the end, pruning the oldest entries beyond ``max_mounted``."""
        await self.mount(widget)
        await self._prune()
        return widget

    async def add_all(self, widgets: list[Widget]) -> None:
        """Mount ``widgets`` at the end at once, then prune as ``add`` does."""
        await self.mount_all(widgets)
        await self._prune()

    async def _prune(self) -> None:
        entries = self.entries
        excess = len(entries) - self.max_mounted
        if excess <= 0:
            return
        old = entries[:excess]
        self.hidden.extend(w.record() for w in old)  # type: ignore[attr-defined]
        await self.remove_children(old)
        self._update_bar()

    def _update_bar(self) -> None:
        count = len(self.hidden)
        self._bar.update(f"▲ {count} earlier entr{'y' if count == 1 else 'ies'} — click to show")
        self._bar.display = count > 0

    @on(EarlierBar.Pressed)
    async def show_earlier(self) -> None:
        """Mount the next batch of older entries above the current ones."""
        batch = self.hidden[-REMOUNT_BATCH:]
        del self.hidden[-REMOUNT_BATCH:]
        # Raising the limit keeps the remounted entries until the user clears the transcript.
        self.max_mounted += len(batch)
        await self.mount_all([make() for make in batch], after=self._bar)
        self._update_bar()

    def add_hidden(self, records: list[Callable[[], Widget]]) -> None:
        """Keep ``records`` as entries older than every one shown (a resumed session's turns)."""
        self.hidden[:0] = records
        self._update_bar()

    def records(self) -> list[Callable[[], Widget]]:
        """Every entry, hidden ones first, as records that mount it again (for ``restore``)."""
        return [*self.hidden, *(w.record() for w in self.entries)]  # type: ignore[attr-defined]

    async def restore(self, records: list[Callable[[], Widget]]) -> None:
        """Replace the entries with ``records``; only the newest ``max_mounted`` are mounted."""
        await self.clear()
        split = max(len(records) - self.max_mounted, 0)
        self.hidden = records[:split]
        await self.mount_all([make() for make in records[split:]])
        self._update_bar()

    async def clear(self) -> None:
        self.hidden.clear()
        self.max_mounted = self.base_max_mounted
        await self.remove_children(self.entries)
        self._update_bar()
