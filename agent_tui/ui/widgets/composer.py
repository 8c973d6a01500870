"""The input area: the completion list and Ctrl+R's search line above the prompt, and the vi mode
(``[ui] vim``) in its top border. The composer owns both (attributes down:
it sets the prompt's ``completing`` flag and the list's options; the prompt posts messages up).
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from agent_tui.ui.completion import Completer, Completion
from agent_tui.ui.image_paste import ImageChips
from agent_tui.ui.widgets.prompt_input import PromptInput


class CompletionList(OptionList):
    DEFAULT_CSS = """
    CompletionList { height: auto; max-height: 8; display: none; border: none; padding: 0; }
    CompletionList.-shown { display: block; }
    """
    can_focus = False  # focus stays in the prompt; keys arrive as PromptInput.CompletionKey


class SearchLine(Static):
    """``(reverse-i-search)`query': match`` while Ctrl+R searches; hidden otherwise."""

    DEFAULT_CSS = """
    SearchLine { height: 1; display: none; padding: 0 1; color: $text-accent; text-wrap: nowrap;
                 text-overflow: ellipsis; }
    SearchLine.-shown { display: block; }
    """


class Composer(Vertical):
    DEFAULT_CSS = """
    Composer { height: auto; max-height: 20; border-top: solid $primary; }
    Composer > PromptInput { height: auto; max-height: 10; min-height: 1; padding: 0 1; }
    """

    def __init__(self, completer: Completer | None = None, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.completer = completer
        self._offers: list[Completion] = []
        self._start = 0
        self._navigated = False

    def compose(self) -> ComposeResult:
        yield CompletionList(id="completions")
        yield ImageChips(id="image-chips")
        yield SearchLine(id="history-search", markup=False)
        yield PromptInput(
            id="prompt",
            placeholder="Ask anything · / commands · @ participants · # references · F1 help",
        )

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def image_chips(self) -> ImageChips:
        return self.query_one(ImageChips)

    @on(PromptInput.ImagePasted)
    def _image_pasted(self, event: PromptInput.ImagePasted) -> None:
        from agent_tui.front.types import MAX_IMAGES_PER_REQUEST
        from agent_tui.images import MAX_IMAGE_BYTES, ImageError, load_image

        event.stop()
        if len(self.image_chips.images) >= MAX_IMAGES_PER_REQUEST:
            self.notify(f"At most {MAX_IMAGES_PER_REQUEST} images a message.", severity="warning")
            return
        try:
            self.image_chips.add_image(load_image(Path(event.path)))
        except ImageError as exc:
            limit = MAX_IMAGE_BYTES // 1024 // 1024
            self.notify(
                f"Not attached: {exc} (PNG, JPEG, GIF, WebP up to {limit} MB).", severity="error"
            )

    @on(PromptInput.ImageRemoved)
    def _image_removed(self, event: PromptInput.ImageRemoved) -> None:
        event.stop()
        self.image_chips.remove_last()

    @on(PromptInput.SearchChanged)
    def _search_changed(self, event: PromptInput.SearchChanged) -> None:
        event.stop()
        line = self.query_one(SearchLine)
        if event.line is not None:
            self.dismiss_offers()  # the list is for the text being typed, not the search
            line.update(event.line)
        line.set_class(event.line is not None, "-shown")

    @on(PromptInput.VimModeChanged)
    def _vim_mode_changed(self, event: PromptInput.VimModeChanged) -> None:
        from agent_tui.ui.vim_keys import MODE_LABELS

        event.stop()
        self.border_title = MODE_LABELS.get(event.mode, "")

    @property
    def completion_list(self) -> CompletionList:
        return self.query_one(CompletionList)

    @on(PromptInput.Changed)
    def _refresh_offers(self) -> None:
        prompt = self.prompt
        if self.completer is None:
            return
        row, col = prompt.cursor_location
        lines = prompt.text.split("\n")
        before = "\n".join(lines[:row] + [lines[row][:col] if row < len(lines) else ""])
        self._start, self._offers = self.completer.complete(before)
        self._show_offers()

    def _show_offers(self) -> None:
        options = self.completion_list
        options.clear_options()
        for offer in self._offers:
            label = Text(offer.label, style="bold")
            if offer.description:
                label.append("  " + offer.description, style="dim")
            options.add_option(Option(label))
        shown = bool(self._offers)
        self._navigated = False
        options.set_class(shown, "-shown")
        if shown:
            options.highlighted = 0
        self.prompt.completing = shown

    def dismiss_offers(self) -> None:
        self._offers = []
        self._show_offers()

    @on(PromptInput.CompletionKey)
    def _completion_key(self, event: PromptInput.CompletionKey) -> None:
        event.stop()
        options = self.completion_list
        if event.action in ("up", "down"):
            self._navigated = True
            if event.action == "up":
                options.action_cursor_up()
            else:
                options.action_cursor_down()
        elif event.action == "dismiss":
            self.dismiss_offers()
        elif event.action == "enter" and (not self._offers or options.highlighted is None):
            # An Enter queued behind the Tab that took the offer (typed fast, or one read from
            # the terminal): the list it was meant for is gone, so it is the prompt's Enter.
            self.prompt.call_later(self.prompt.action_submit)
        elif event.action in ("accept", "enter") and options.highlighted is not None:
            offer = self._offers[options.highlighted]
            word = self._current_word()
            complete = offer.insert.strip() == word
            # "see #12" should send on Enter: a `#` offer is taken with Tab or after choosing one.
            casual = word.startswith("#") and not self._navigated
            if event.action == "enter" and (complete or casual):
                self.dismiss_offers()
                # Run in the prompt's own context: a message sent from here would have this
                # composer as sender, and Textual does not bubble a message back to its sender.
                self.prompt.call_later(self.prompt.action_submit)
            else:
                self.accept(offer)

    def _current_word(self) -> str:
        row, col = self.prompt.cursor_location
        line = self.prompt.text.split("\n")[row][:col]
        return line[max(line.rfind(" "), -1) + 1 :]

    def accept(self, offer: Completion) -> None:
        """Replace the word being completed with ``offer``."""
        prompt = self.prompt
        row, col = prompt.cursor_location
        before_lines = prompt.text.split("\n")[:row]
        line_start = sum(len(line) + 1 for line in before_lines)
        start_col = self._start - line_start
        prompt.replace(offer.insert, (row, max(start_col, 0)), (row, col))
        self.dismiss_offers()

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.accept(self._offers[event.option_index])
        self.prompt.focus()
