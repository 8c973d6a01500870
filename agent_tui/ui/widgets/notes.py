"""Transcript entries that are not model output: the user's messages and notes (errors, notices)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, Static

from agent_tui.text_safety import visible, visible_markdown

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


class UserMessage(Static):
    """What the user sent, shown as typed (no Markup parsing: `[x]` must stay `[x]`)."""

    DEFAULT_CSS = """
    UserMessage {
        margin: 1 0 0 0;
        padding: 0 1;
        border-left: thick $primary;
        background: $boost;
    }
    UserMessage.-unanswered { border-left: thick $warning; }
    """

    def __init__(self, text: str, unanswered: bool = False) -> None:
        super().__init__(visible(text), markup=False)  # a paste may carry control characters
        self.text = text
        if unanswered:
            self.mark_unanswered()

    def mark_unanswered(self) -> None:
        """The model never answered this message, so the agent left it out of the conversation:
        the transcript must not show it as said (the next request will not carry it)."""
        self.add_class("-unanswered")
        hint = Text("not in the conversation: the model never answered it (↑ recalls it)")
        hint.stylize("italic dim")
        self.update(Text.assemble(visible(self.text), "\n", hint))

    def record(self) -> Callable[[], Widget]:
        text, unanswered = self.text, self.has_class("-unanswered")
        return lambda: UserMessage(text, unanswered)


class Note(Static):
    """A notice from the app or the agent; ``level`` is info, warning or error."""

    DEFAULT_CSS = """
    Note { margin: 1 0 0 0; padding: 0 1; color: $text-muted; }
    Note.-warning { color: $warning; }
    Note.-error { color: $error; }
    """

    def __init__(self, text: str, level: str = "info") -> None:
        # Notices quote servers, tools and files: control characters shown (text_safety).
        super().__init__(visible(text), markup=False, classes=f"-{level}")
        self.text = text
        self.level = level

    def record(self) -> Callable[[], Widget]:
        text, level = self.text, self.level
        return lambda: Note(text, level)


class ErrorNote(Horizontal):
    """A provider error, with a Retry button that re-sends the turn's prompt."""

    DEFAULT_CSS = """
    ErrorNote { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: thick $error; }
    ErrorNote > Static { width: 1fr; color: $error; }
    ErrorNote > Button { min-width: 9; height: 1; border: none; }
    """

    class RetryRequested(Message):
        def __init__(self, prompt: str) -> None:
            super().__init__()
            self.prompt = prompt

    def __init__(self, message: str, prompt: str) -> None:
        super().__init__()
        self.message_text = message
        self.prompt = prompt

    def compose(self) -> ComposeResult:
        yield Static(f"✗ {visible(self.message_text)}", markup=False)
        yield Button("Retry", variant="error", compact=True, id="retry")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.post_message(self.RetryRequested(self.prompt))

    def record(self) -> Callable[[], Widget]:
        message, prompt = self.message_text, self.prompt
        return lambda: ErrorNote(message, prompt)


def line_break_parser() -> MarkdownIt:
    """Markdown where a newline is a new line (``breaks``, as in GitHub comments).

    Commands write their output line by line ("Restored: a.py" then "Left as they are: …");
    CommonMark would join lines that are not separated by a blank line into one.
    """
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

    def hard_breaks(state: StateCore) -> None:
        # ``breaks`` only changes markdown-it's HTML renderer; Textual reads the tokens.
        for token in state.tokens:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"

    parser = MarkdownIt("gfm-like", {"breaks": True})
    parser.core.ruler.push("hard_breaks", hard_breaks)
    return parser


class MarkdownNote(Vertical):
    """A command's Markdown output (e.g. /help's table), not sent to the model."""

    DEFAULT_CSS = """
    MarkdownNote { height: auto; margin: 1 0 0 0; border-left: thick $accent; }
    MarkdownNote > Markdown { margin: 0; padding: 0 1; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        yield Markdown(visible_markdown(self.text), parser_factory=line_break_parser)

    def record(self) -> Callable[[], Widget]:
        text = self.text
        return lambda: MarkdownNote(text)
