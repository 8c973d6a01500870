"""``/rewind``: pick an earlier prompt, then restore the code, the conversation, or both."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui.key_guard import GuardedModal, guard_notice

CHOICES = {"code": "restore code", "conversation": "restore conversation", "both": "both"}


@dataclass(frozen=True)
class PromptChoice:
    """One earlier prompt: its message index, the text typed, how many files its turns changed."""

    index: int
    text: str
    files: int


class RewindScreen(GuardedModal[tuple[int, str] | None]):
    """Dismisses with (message index, "code" | "conversation" | "both"), or None on Esc.

    Enter or b puts files back: keys typed on after /rewind wait for a pause (``key_guard``),
    and the list is focused only then.
    """

    CSS_PATH = "rewind.tcss"
    BINDINGS = [
        Binding("escape", "dismiss(None)", "Cancel"),
        Binding("b", "choose('both')", "Code + conversation"),
        Binding("c", "choose('code')", "Restore code"),
        Binding("v", "choose('conversation')", "Restore conversation"),
    ]

    def __init__(self, prompts: list[PromptChoice]) -> None:
        super().__init__()
        self.prompts = list(reversed(prompts))  # newest first, as they are usually wanted

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Rewind to before which prompt?", id="title")
            yield OptionList(
                *(Option(self._label(p), id=str(p.index)) for p in self.prompts),
                id="prompts",
            )
            yield guard_notice()
            yield Label(
                "b/Enter code + conversation · c code only · v conversation only · Esc cancel",
                id="hint",
                classes="key-legend",
            )
            yield Label(
                "Code: files the agent changed from that prompt on go back (commands' other "
                "effects cannot). Conversation: those turns leave it; the prompt returns to the "
                "input.",
                id="explain",
            )

    def keys_armed(self) -> None:
        self.query_one(OptionList).focus()

    @staticmethod
    def _label(prompt: PromptChoice) -> Text:
        # Text, not str: a prompt like "[b]x[/b]" is shown as typed, never read as markup.
        text = one_line(prompt.text)
        label = Text(text[:70] + "…" if len(text) > 70 else text)
        if prompt.files:
            label.append(f"  ({plural(prompt.files, 'file')} changed since)", style="dim")
        return label

    def action_choose(self, choice: str) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        if highlighted is None or not self.prompts:
            return
        self.dismiss((self.prompts[highlighted].index, choice))

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.action_choose("both")
