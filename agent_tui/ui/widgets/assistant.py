"""The assistant's answer: streamed through ``MarkdownStream`` while it arrives, then frozen.

While streaming, Textual's ``Markdown`` widget (one child widget per block) renders the text and
the stream coalesces fragments so rendering never falls behind. Fragments are also batched to at
most ``STREAM_FPS`` updates a second: each update re-lays out the transcript, and left to itself
the stream updates as often as layout allows, which at 2,000 tokens/s kept a core busy. And as a
long answer grows, its finished head is frozen (see below) so the live ``Markdown`` keeps a few
blocks instead of hundreds, each laid out again on every update. Once the answer is complete the
rest is swapped for a ``Static`` holding a Rich Markdown rendering (after the heads frozen on the
way, if any): a long transcript then costs a widget or a few per answer instead of dozens, which
keeps layout (and so streaming) fast at the end of it. A remounted answer is one widget.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

from agent_tui.text_safety import visible, visible_markdown
from agent_tui.ui.markdown_tables import WrappingMarkdown, fenced_lines, shown_length

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widgets.markdown import MarkdownStream

STREAM_FPS = 12  # Markdown updates per second while an answer streams in
FREEZE_CHARS = 1500  # past this much live Markdown, its finished blocks are frozen


def stable_prefix(text: str) -> int:
    """Where the last top-level block of ``text`` starts (0: none yet): everything before it is
    finished Markdown that later text cannot change.

    A block starts after a blank line, outside a code fence, on a line that is not indented (an
    indented line may continue a list item or be indented code).
    """
    best = 0
    after_blank = False
    for offset, line, inside in fenced_lines(text):
        stripped = line.strip()
        if not inside and after_blank and stripped and not line[0].isspace():
            best = offset
        after_blank = not inside and not stripped
    return best


class FrozenMarkdown(Static):
    """Finished Markdown as one widget (code blocks highlighted by Rich); ``source`` is its text."""

    def __init__(self, source: str, classes: str = "answer") -> None:
        # The model's text: control characters shown, not sent to the terminal (text_safety).
        shown = visible_markdown(source)
        super().__init__(WrappingMarkdown(shown, code_theme="monokai"), classes=classes)
        self.source = source


def frozen_markdown(text: str, classes: str = "answer") -> FrozenMarkdown:
    """A finished answer as one widget."""
    return FrozenMarkdown(text, classes)


class AssistantMessage(Vertical):
    """One round's assistant output. ``append_*`` while streaming, then ``finish()``.

    Args:
        text: Markdown already complete (a remounted entry): rendered frozen at once.
        thinking: the model's thinking, shown collapsed.
        frozen: render ``text`` as finished (default: when ``text`` is given).
    """

    DEFAULT_CSS = """
    AssistantMessage { height: auto; margin: 1 0 0 0; }
    AssistantMessage > Markdown { margin: 0; padding: 0 1; }
    AssistantMessage > .answer { padding: 0 1; }
    AssistantMessage > .head { padding: 0 1; margin-bottom: 1; }
    AssistantMessage > Collapsible { padding-bottom: 0; border-top: none; }
    AssistantMessage .thinking-text { color: $text-muted; }
    """

    def __init__(self, text: str = "", thinking: str = "", *, frozen: bool | None = None) -> None:
        super().__init__()
        self.text = text
        self.thinking = thinking
        self.streaming = not (bool(text) if frozen is None else frozen)
        self._stream: MarkdownStream | None = None
        self._thinking_view: Static | None = None
        self._markdown: Markdown | None = None
        self._pending: list[str] = []  # fragments waiting for the next update
        self._flush_timer: Timer | None = None
        self._flushed_at = 0.0
        self._live = text if self.streaming else ""  # the live Markdown's text (after the heads)
        self._shown = len(self._live)  # how much of it the live Markdown was given
        self._heads: list[FrozenMarkdown] = []  # finished blocks of a long streaming answer
        self._lock = asyncio.Lock()  # one flush or finish at a time: each awaits the widgets

    def compose(self) -> ComposeResult:
        if self.thinking:
            yield self._thinking_box()
        if self.streaming:
            self._markdown = Markdown(visible_markdown(self._live))
            yield self._markdown
        elif self.text:
            yield frozen_markdown(self.text)

    def _thinking_box(self) -> Collapsible:
        self._thinking_view = Static(visible(self.thinking), markup=False, classes="thinking-text")
        return Collapsible(self._thinking_view, title="Thinking", collapsed=True)

    async def append_text(self, fragment: str) -> None:
        self.text += fragment
        if self._markdown is None:
            return  # already finished: ignore late fragments
        self._pending.append(fragment)
        if self._flush_timer is not None:
            return  # an update is already due
        wait = self._flushed_at + 1 / STREAM_FPS - time.monotonic()
        if wait <= 0:
            await self._flush()  # the first fragment (and any after a pause) shows at once
        else:
            self._flush_timer = self.set_timer(wait, self._flush)

    async def _flush(self) -> None:
        self._flush_timer = None
        async with self._lock:
            if not self._pending or self._markdown is None:
                return
            text = visible_markdown("".join(self._pending))
            self._pending.clear()
            self._flushed_at = time.monotonic()
            self._live += text
            cut = stable_prefix(self._live) if len(self._live) > FREEZE_CHARS else 0
            if cut:
                await self._freeze_head(self._markdown, cut)
            # A table's header is held back until its delimiter row is whole (markdown_tables).
            end = shown_length(self._live)
            if end > self._shown:
                if self._stream is None:
                    # The stream coalesces fragments so rendering never falls behind the model.
                    self._stream = Markdown.get_stream(self._markdown)
                await self._stream.write(self._live[self._shown : end])
                self._shown = end

    async def _freeze_head(self, markdown: Markdown, cut: int) -> None:
        """Move the live text's finished blocks (before ``cut``) into a frozen widget, and start
        a new live widget for the rest.

        A new widget, not ``Markdown.update``: after ``update`` Textual appends by parsing again
        from the last line only, so text after a fence that was open (or a table's next row)
        was parsed without its start, e.g. as code until the end of the answer.
        """
        head, self._live = self._live[:cut], self._live[cut:]
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        frozen = frozen_markdown(head, classes="head")
        self._heads.append(frozen)
        self._markdown = Markdown()
        self._shown = 0
        await self.mount(frozen, self._markdown, before=markdown)
        await markdown.remove()

    async def append_thinking(self, fragment: str) -> None:
        self.thinking += fragment
        if self._thinking_view is None:
            await self.mount(self._thinking_box(), before=0)
        else:
            self._thinking_view.update(visible(self.thinking))

    async def finish(self) -> None:
        """Flush the stream and freeze the rest of the answer (safe to call twice)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        async with self._lock:
            self._live += visible_markdown("".join(self._pending))
            self._pending.clear()
            if self._stream is not None:
                stream, self._stream = self._stream, None
                await stream.stop()
            if self._markdown is not None:
                markdown, self._markdown = self._markdown, None
                self.streaming = False
                # The frozen heads stay: rendering the whole answer again would cost as much as
                # all of them did. A remounted answer (``record``) is one widget.
                if self._live.strip():
                    await self.mount(frozen_markdown(self._live), after=markdown)
                await markdown.remove()

    @property
    def is_empty(self) -> bool:
        return not self.text and not self.thinking

    def record(self) -> Callable[[], Widget]:
        text, thinking = self.text, self.thinking
        return lambda: AssistantMessage(text, thinking, frozen=True)
