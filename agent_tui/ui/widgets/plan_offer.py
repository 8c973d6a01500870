"""Shown in place of the prompt when a turn in plan mode ends with a plan: carry it out, and in
which mode, or keep planning.

In the main screen, not a dialog over it (as Codex's and Claude Code's plan prompts), so the plan
above stays in sight and scrolls (PageUp/PageDown) while the choice waits.

It opens as a turn ends, maybe while the person is typing: its keys (1 would carry the plan out,
Enter picks the highlighted choice) wait for a pause in typing; the keys before go to the prompt
(``key_guard``). Text typed or pasted over it says what to change: the offer goes and the text lands
in the prompt (``ModeFlow``), a paste whole (:class:`PlanOffer.Pasted`).
"""

from __future__ import annotations

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.modes import Mode
from agent_tui.ui.key_guard import KeyGuard, guard_css, guard_notice, watch_arming
from agent_tui.ui.key_handover import KeyHandover
from agent_tui.ui.terminal_tail import app_clock

KEEP_PLANNING = "keep"


def choices(before_plan: Mode) -> list[tuple[str, str]]:
    """(answer, label) pairs: the mode plan mode came from first, then the other one."""
    other = Mode.ACCEPT_EDITS if before_plan is not Mode.ACCEPT_EDITS else Mode.ASK
    describe = {
        Mode.ASK: "ask before edits and commands",
        Mode.ACCEPT_EDITS: "accept edits, ask before commands",
    }
    return [
        (before_plan.value, f"Yes, carry it out: {describe[before_plan]}"),
        (other.value, f"Yes, carry it out: {describe[other]}"),
        (KEEP_PLANNING, "No, keep planning (say what to change)"),
    ]


class PlanChoices(OptionList):
    """The options; number keys pick, Esc keeps planning, PageUp/PageDown scroll the plan."""

    DEFAULT_CSS = """
    PlanChoices, PlanChoices:focus { height: auto; border: none; padding: 0; }
    """
    BINDINGS = [
        Binding("1", "pick(0)", show=False),
        Binding("2", "pick(1)", show=False),
        Binding("3,escape", "pick(2)", "Keep planning", key_display="Esc"),
        Binding("pageup", "scroll_plan(-1)", show=False),
        Binding("pagedown", "scroll_plan(1)", show=False),
    ]

    key_guard: KeyGuard  # set by PlanOffer when it is shown
    typing_to: Widget  # the prompt: what is typed over the offer goes there (set by PlanOffer)
    OWN_KEYS = frozenset({"1", "2", "3"})

    def __init__(self, *options: Option) -> None:
        super().__init__(*options)
        self.handover: KeyHandover | None = None  # text typed over the offer: it is leaving

    def on_key(self, event: events.Key) -> None:
        # Keys come here in the order typed (this has the focus); the bindings (1–3, Enter) only
        # run when the key bubbles up to the app, so keys for the prompt are taken here.
        if self.handover is None and self._typed_for_prompt(event):
            self.handover = KeyHandover(self.typing_to, self._typed_over)
        if self.handover is not None:
            self.handover.take(event)

    def _typed_for_prompt(self, event: events.Key) -> bool:
        """Text typed over the offer; before it takes keys (``key_guard``), any text or
        Backspace, and any other key is dropped rather than answering."""
        text = event.is_printable and bool(event.character)
        if not self.key_guard.key_pressed():
            if text or event.key == "backspace":
                return True
            event.stop()
            event.prevent_default()
            return False
        return text and event.key not in self.OWN_KEYS

    def on_idle(self) -> None:
        if self.handover is not None:
            self.handover.idle()

    def _typed_over(self) -> None:
        self.post_message(PlanOffer.TypedOver())

    def action_pick(self, index: int) -> None:
        self.highlighted = index
        self.action_select()

    def action_scroll_plan(self, pages: int) -> None:
        from agent_tui.ui.widgets.transcript import Transcript

        transcript = self.screen.query_one(Transcript)
        (transcript.scroll_page_up if pages < 0 else transcript.scroll_page_down)()


class PlanOffer(Vertical):
    """Posts :class:`PlanOffer.Answered` with a Mode's value (carry it out) or ``keep``."""

    DEFAULT_CSS = """
    PlanOffer { height: auto; border: round $accent; padding: 0 1; }
    PlanOffer > #question { text-style: bold; }
    PlanOffer > #keys { color: $text-muted; }
    """ + guard_css("PlanOffer")

    class Answered(Message):
        def __init__(self, answer: str) -> None:
            super().__init__()
            self.answer = answer

    class TypedOver(Message):
        """Text was typed over the offer (it is in the prompt, which has the focus): close it."""

    class Pasted(Message):
        """Text pasted over the offer (which has nothing to paste into): it is for the prompt."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, before_plan: Mode, typing_to: Widget) -> None:
        super().__init__()
        self.answers = choices(before_plan)
        self.typing_to = typing_to

    def compose(self) -> ComposeResult:
        yield Label("The plan is ready. Carry it out?", id="question")
        yield PlanChoices(
            *(Option(f"{n}. {text}", id=answer) for n, (answer, text) in enumerate(self.answers, 1))
        )
        yield guard_notice()
        yield Label(
            "↑↓ Enter or 1–3 · Esc keeps planning · PgUp/PgDn scroll the plan",
            id="keys",
            classes="key-legend",
        )

    def on_mount(self) -> None:
        choices = self.query_one(PlanChoices)
        choices.key_guard = KeyGuard(app_clock(self))
        choices.typing_to = self.typing_to
        watch_arming(self, choices.key_guard)
        choices.highlighted = 0
        choices.focus()

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        self.post_message(self.Pasted(event.text))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Answered(event.option.id or KEEP_PLANNING))
