"""The multi-line prompt: Enter sends, Shift+Enter or Ctrl+J adds a newline (so does ``\\`` then
Enter, for terminals without Shift+Enter), Up/Down recall earlier prompts (on the first / last
line), Ctrl+R searches them, PageUp/PageDown scroll the transcript, and completion keys while the
parent shows offers. The keys of its actions come from the app's keymap (``ui/keymap.py``);
``[ui] vim`` adds normal and insert modes (``ui/vim_keys.py``).
"""

from __future__ import annotations

from pathlib import Path

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from agent_tui.ui.history_search import HistorySearch
from agent_tui.ui.keymap import Keymap
from agent_tui.ui.vim_keys import VimKeys

# The default keys (ui/keymap.py): Alt+Enter arrives as ESC CR in most terminals
# (ui/terminal_keys.py names it) and steers while a turn runs, else adds a line; Ctrl+Enter only
# where the terminal tells it from Enter; Ctrl+S everywhere (the fallback: a terminal may keep Alt).
PAGE_KEYS = {"pageup": -1, "pagedown": 1}


class PromptInput(TextArea):
    """Posts messages up; the parent (Composer) decides what completion keys do."""

    BINDINGS = [
        # Shown in the footer; the keys themselves are handled in _on_key (the ids are [ui] keys'
        # handles, so the footer shows the keys in effect).
        Binding("enter", "submit", "Send", show=True, key_display="⏎", id="submit"),
        Binding("ctrl+j", "newline", "Newline", show=True, key_display="^J", id="newline"),
        # Shown while a turn runs (check_action).
        Binding("alt+enter", "steer", "Steer now", show=True, key_display="M-⏎", id="steer"),
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

    class SearchChanged(Message):
        """Ctrl+R's search line changed: ``line`` to show, or None when the search ended."""

        def __init__(self, line: str | None) -> None:
            super().__init__()
            self.line = line

    class VimModeChanged(Message):
        """``[ui] vim``: the prompt went to ``mode`` (``"normal"`` / ``"insert"``)."""

        def __init__(self, mode: str) -> None:
            super().__init__()
            self.mode = mode

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
        self.keymap = Keymap()  # set by the app from [ui] keys
        self.vim: VimKeys | None = None  # [ui] vim: see use_vim
        self.search: HistorySearch | None = None  # Ctrl+R while it runs

    def use_vim(self) -> None:
        """Normal and insert modes from now on (starting in insert: typing works as before)."""
        self.vim = VimKeys(lambda mode: self.post_message(self.VimModeChanged(mode)))
        self.post_message(self.VimModeChanged(self.vim.mode))

    async def _on_paste(self, event: events.Paste) -> None:
        if self.search is not None:  # pasted into Ctrl+R's query (its first line), as bash does
            self.search.type(event.text.split("\n", 1)[0])
            self.post_message(self.SearchChanged(self.search.line()))
            event.prevent_default()
        elif self._pasted_image(event.text):
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
        if self._handle_key(event.key, event.character):
            event.stop()
            event.prevent_default()

    def _handle_key(self, key: str, character: str | None) -> bool:
        """One key, in order: the running search, completion, vi's modes, the prompt's actions."""
        if self.search is not None:
            self._search_key(key, character)
            return True
        if self.completing and key in ("up", "down", "tab", "enter", "escape"):
            action = {"tab": "accept", "escape": "dismiss"}.get(key, key)
            self.post_message(self.CompletionKey(action))
            return True
        if self.vim is not None and self.vim.key(self, key, character):
            return True
        return self._action_key(key) or self._moving_key(key)

    def typed(self, key: str, character: str) -> None:
        """A printable key that reached the prompt another way (the focus was elsewhere, a
        question held it): a vi command in normal mode, else the character typed."""
        if self.vim is None or not self.vim.key(self, key, character):
            self.insert(character)

    def _action_key(self, key: str) -> bool:
        """The rebindable actions (``[ui] keys``)."""
        keys = self.keymap
        if keys.has("steer", key) and self.steering:
            self.action_steer()
        elif keys.has("submit", key):
            self._submit_or_continue()
        elif keys.has("newline", key):
            self.action_newline()
        elif keys.has("steer", key):  # "send now": with no turn running, that is sending
            self.action_submit()
        elif keys.has("history_search", key):
            self.start_search()
        else:
            return False
        return True

    def _moving_key(self, key: str) -> bool:
        """Paging, queued messages, history recall: the keys no keymap entry names."""
        if key in PAGE_KEYS:
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
            return False
        return True

    def _submit_or_continue(self) -> None:
        """Enter; after a ``\\`` it is a newline instead (the backslash goes), as in a shell."""
        row, col = self.cursor_location
        if col > 0 and self.document.get_line(row)[col - 1] == "\\":
            self.replace("\n", (row, col - 1), (row, col))
            return
        self.action_submit()

    # ---- Ctrl+R ----------------------------------------------------------------------

    def start_search(self) -> None:
        """Search the prompt history from the newest prompt back (the text typed stays)."""
        self.search = HistorySearch(self.prompt_history)
        self.post_message(self.SearchChanged(self.search.line()))

    def _search_key(self, key: str, character: str | None) -> None:
        search = self.search
        assert search is not None
        if key in ("escape", "ctrl+g"):
            self.cancel_search()
        elif self.keymap.has("history_search", key):
            search.older()
        elif key == "backspace":
            search.backspace()
        elif character and character.isprintable() and len(character) == 1:
            search.type(character)
        else:  # Enter, or any other key: take the match into the prompt, as bash does
            self._end_search(search.match or None)
            return
        if self.search is not None:
            self.post_message(self.SearchChanged(search.line()))

    def cancel_search(self) -> None:
        """End the search, the prompt as it was (Esc, Ctrl+G, the app's Ctrl+C)."""
        self._end_search(None)

    def _end_search(self, match: str | None) -> None:
        self.search = None
        if match is not None:
            self._history_index = None
            self.load_text(match)
            self.move_cursor(self.document.end)
        self.post_message(self.SearchChanged(None))

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
        if self.vim is not None:
            self.vim.set_mode("insert")  # a new prompt starts in insert mode, as in a vi shell
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

    def recall(self, step: int) -> bool:
        """An earlier (``-1``) or later (``+1``) prompt, as Up / Down on the first / last line."""
        if not self.prompt_history or (step > 0 and self._history_index is None):
            return False
        self._recall(step)
        return True

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
