"""The assistant's answer: streamed through ``MarkdownStream`` while it arrives, then frozen.

While streaming, Textual's ``Markdown`` widget (one child widget per block) renders the text and
the stream coalesces fragments so rendering never falls behind. Once the answer is complete it is
swapped for a single ``Static`` holding a Rich Markdown rendering: a long transcript then costs one
widget per answer instead of dozens, which keeps layout (and so streaming) fast at the end of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static

if TYPE_CHECKING:
    from textual.widgets.markdown import MarkdownStream


def frozen_markdown(text: str) -> Static:
    """A finished answer as one widget (code blocks highlighted by Rich)."""
    return Static(RichMarkdown(text, code_theme="monokai"), classes="answer")


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

    def compose(self) -> ComposeResult:
        if self.thinking:
            yield self._thinking_box()
        if self.streaming:
            self._markdown = Markdown()
            yield self._markdown
        elif self.text:
            yield frozen_markdown(self.text)

    def _thinking_box(self) -> Collapsible:
        self._thinking_view = Static(self.thinking, markup=False, classes="thinking-text")
        return Collapsible(self._thinking_view, title="Thinking", collapsed=True)

    async def append_text(self, fragment: str) -> None:
        self.text += fragment
        if self._markdown is None:
            return  # already finished: ignore late fragments
        if self._stream is None:
            # The stream coalesces fragments so rendering never falls behind the model.
            self._stream = Markdown.get_stream(self._markdown)
        await self._stream.write(fragment)

    async def append_thinking(self, fragment: str) -> None:
        self.thinking += fragment
        if self._thinking_view is None:
            await self.mount(self._thinking_box(), before=0)
        else:
            self._thinking_view.update(self.thinking)

    async def finish(self) -> None:
        """Flush the stream and freeze the answer into one widget (safe to call twice)."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            await stream.stop()
        if self._markdown is not None:
            markdown, self._markdown = self._markdown, None
            self.streaming = False
            if self.text:
                await self.mount(frozen_markdown(self.text), after=markdown)
            await markdown.remove()

    @property
    def is_empty(self) -> bool:
        return not self.text and not self.thinking

    def record(self) -> Callable[[], Widget]:
        text, thinking = self.text, self.thinking
        return lambda: AssistantMessage(text, thinking, frozen=True)
