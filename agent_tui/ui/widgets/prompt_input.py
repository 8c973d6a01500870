"""The multi-line prompt: Enter sends, Shift+Enter or Ctrl+J adds a newline, Up/Down recall
earlier prompts (on the first / last line), PageUp/PageDown scroll the transcript, and completion
keys while the parent shows offers.
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = {"shift+enter", "ctrl+j", "alt+enter"}  # alt+enter steers while a turn runs
# Alt+Enter arrives as ESC CR in most terminals (ui/terminal_keys.py names it); Ctrl+Enter only
# where the terminal tells it from Enter; Ctrl+S everywhere (the fallback: a terminal may keep Alt).
STEER_KEYS = frozenset({"alt+enter", "ctrl+enter", "ctrl+s"})
PAGE_KEYS = {"pageup": -1, "pagedown": 1}


class PromptInput(TextArea):
    """Posts messages up; the parent (Composer) decides what completion keys do."""

    BINDINGS = [
        Binding("enter", "submit", "Send", show=True, key_display="⏎"),
        Binding("ctrl+j", "newline", "Newline", show=True, key_display="^J"),
        # Shown while a turn runs (check_action); the key itself is handled in _on_key.
        Binding("alt+enter", "steer", "Steer now", show=True, key_display="M-⏎"),
    ]

    class Submitted(Message):
        """The user pressed Enter on a non-empty prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Steered(Message):
        """Alt+Enter (Ctrl+Enter, Ctrl+S) while a turn runs: send the text to it now."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class TakeQueued(Message):
        """Up on an empty prompt while messages are queued: take the last one back."""

    class CompletionKey(Message):
        """A key that steers the completion list: up, down, accept or dismiss."""

        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    class ImagePasted(Message):
        """The paste was the path of an image file: attach it instead of inserting the text."""

        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    class ImageRemoved(Message):
        """Backspace in an empty prompt: drop the last attached image."""

    class ScrollRequested(Message):
        """PageUp / PageDown: the transcript should scroll by ``pages`` (negative: up)."""

        def __init__(self, pages: int) -> None:
            super().__init__()
            self.pages = pages

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
        self.steering = False  # set by the app while a turn runs: Alt+Enter steers it
        self.has_queued = False  # set by the app while messages are queued (Up takes one back)

    async def _on_paste(self, event: events.Paste) -> None:
        if self._pasted_image(event.text):
            event.prevent_default()
        # Otherwise Textual goes on to TextArea's own _on_paste, which inserts the text.

    def _pasted_image(self, text: str) -> bool:
        """If ``text`` is the path of an image file, attach it (``ImagePasted``); True if so."""
        from agent_tui.ui.image_paste import pasted_image_path

        workspace = getattr(self.app, "workspace", None)
        path = pasted_image_path(text, workspace) if isinstance(workspace, Path) else None
        if path is None or self.read_only:
            return False
        self.post_message(self.ImagePasted(str(path)))
        return True

    def paste(self, text: str) -> None:
        """Take ``text`` as pasted here (a paste that reached another widget first)."""
        if not self._pasted_image(text) and not self.read_only:
            self.replace(text, *self.selection)

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        if self.completing and key in ("up", "down", "tab", "enter", "escape"):
            action = {"tab": "accept", "escape": "dismiss"}.get(key, key)
            self.post_message(self.CompletionKey(action))
        elif key == "enter":
            self.action_submit()
        elif key in STEER_KEYS and self.steering:
            self.action_steer()
        elif key == "ctrl+s":  # "send now": with no turn running, that is sending
            self.action_submit()
        elif key in NEWLINE_KEYS:
            self.action_newline()
        elif key in PAGE_KEYS:
            self.post_message(self.ScrollRequested(PAGE_KEYS[key]))
        elif key == "backspace" and not self.text:
            self.post_message(self.ImageRemoved())
        elif key == "up" and not self.text and self.has_queued:
            self.post_message(self.TakeQueued())
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

    def action_steer(self) -> None:
        text = self.text.strip()
        if text:
            self.clear()
            self.post_message(self.Steered(text))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "steer" and not self.steering:
            return False
        return True

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
