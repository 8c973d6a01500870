"""The multi-line prompt: Enter sends, Shift+Enter or Ctrl+J adds a newline, Up/Down recall
earlier prompts (on the first / last line), and completion keys while the parent shows offers.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = {"shift+enter", "ctrl+j", "alt+enter"}


class PromptInput(TextArea):
    """Posts messages up; the parent (Composer) decides what completion keys do."""

    BINDINGS = [
        Binding("enter", "submit", "Send", show=True, key_display="⏎"),
        Binding("ctrl+j", "newline", "Newline", show=True, key_display="^J"),
    ]

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class CompletionKey(Message):
        """A key that steers the completion list: up, down, accept or dismiss."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, **kwargs: object) -> None:
        super().__init__(
            soft_wrap=True,
            show_line_numbers=False,
            tab_behavior="focus",
            compact=True,
            highlight_cursor_line=False,
            **kwargs,  # type: ignore[arg-type]
        )
        self.prompt_history: list[str] = []
        self._history_index: int | None = None  # None: editing a new prompt
        self._draft = ""
        self.completing = False  # set by the parent while completion offers are shown

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        if self.completing and key in ("up", "down", "tab", "enter", "escape"):
            action = {"tab": "accept", "escape": "dismiss"}.get(key, key)
            self.post_message(self.CompletionKey(action))
        elif key == "enter":
            self.action_submit()
        elif key in NEWLINE_KEYS:
            self.action_newline()
        elif key == "up" and self.cursor_location[0] == 0 and self.prompt_history:
            self._recall(-1)
        elif key == "down" and self._history_index is not None and self._on_last_line():
            self._recall(+1)
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] == self.document.line_count - 1

    def action_submit(self) -> None:
        text = self.text.strip()
        if not text:
            return
        if not self.prompt_history or self.prompt_history[-1] != text:
            self.prompt_history.append(text)
        self._history_index = None
        self.clear()
        self.post_message(self.Submitted(text))

    def action_newline(self) -> None:
        self.insert("\n")

    def _recall(self, step: int) -> None:
        if self._history_index is None:
            if step > 0:
                return
            self._draft = self.text
            index = len(self.prompt_history) - 1
        else:
            index = self._history_index + step
        if index >= len(self.prompt_history):
            self._history_index = None
            self.load_text(self._draft)
        else:
            self._history_index = max(index, 0)
            self.load_text(self.prompt_history[self._history_index])
        self.move_cursor(self.document.end)
