"""``/resume`` and ``agent-tui --resume``: pick a saved session of this workspace.

Each row shows the name (``/rename``) or the title (the first prompt's line), its age and its
message count; typing filters the rows by name, title or id. Also the question asked before resuming another workspace's session.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.front.types import SessionInfo, age
from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui.key_guard import GuardedModal, guard_notice


def session_label(info: SessionInfo, now: float) -> str:
    title = one_line(info.label)[:60] or "(no title)"
    count = plural(info.messages, "message") if info.messages >= 0 else ""
    return f"{title}  ·  {age(now - info.modified)}  ·  {count}"


class SessionPickerScreen(ModalScreen[str | None]):
    """Dismisses with the chosen session's id, or None on Esc."""

    CSS_PATH = "session_picker.tcss"
    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, sessions: list[SessionInfo]) -> None:
        super().__init__()
        self.sessions = sessions
        self.now = time.time()

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Resume a session — type to search, Enter to resume, Esc to cancel")
            yield Input(placeholder="search names and titles", id="search")
            yield OptionList(*self._options(""), id="sessions")

    def _options(self, query: str) -> list[Option]:
        words = query.lower().split()
        return [
            # Text, not a str: a title is the user's (or a pasted) prompt, never markup.
            Option(Text(session_label(info, self.now)), id=info.id)
            for info in self.sessions
            if all(w in f"{info.name} {info.title} {info.id}".lower() for w in words)
        ]

    @on(Input.Changed, "#search")
    def _search(self, event: Input.Changed) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(event.value))
        if options.option_count:
            options.highlighted = 0

    @on(Input.Submitted, "#search")
    def _enter(self) -> None:
        options = self.query_one(OptionList)
        if options.option_count:
            self.dismiss(options.get_option_at_index(options.highlighted or 0).id)

    def on_key(self, event: object) -> None:
        # Up/Down move in the list while the search box keeps the focus.
        key = getattr(event, "key", "")
        if key in ("up", "down"):
            options = self.query_one(OptionList)
            (options.action_cursor_up if key == "up" else options.action_cursor_down)()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)


class OtherWorkspaceScreen(GuardedModal[bool]):
    """Asked before resuming a session saved in another folder: True resumes it. Asked as the app
    starts, maybe while the person types: its keys wait for a pause (``key_guard``)."""

    CSS_PATH = "session_picker.tcss"
    BINDINGS = [
        Binding("y", "answer(True)", "Resume"),
        Binding("n,escape", "answer(False)", "New session"),
    ]

    def __init__(self, info: SessionInfo) -> None:
        super().__init__()
        self.info = info

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(f"Session {self.info.id} was saved in another folder:")
            yield Label(one_line(self.info.workspace), id="folder", markup=False)
            yield Label("Resume it here? Its paths may not exist in this folder.")
            yield guard_notice()
            with Horizontal(id="buttons", classes="key-legend"):
                yield Button("y Resume", id="resume", variant="warning", compact=True)
                yield Button("n New session", id="new", compact=True)

    def action_answer(self, resume: bool) -> None:
        self.dismiss(resume)

    @on(Button.Pressed)
    def _button(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "resume")
