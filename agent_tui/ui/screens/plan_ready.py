"""Asked when a turn in plan mode ends with a plan: carry it out, and in which mode, or keep planning.

Docked at the bottom like Codex's and Claude Code's plan prompts, so the plan above stays in
sight; PageUp/PageDown scroll the transcript behind it.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from agent_tui.modes import Mode

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


class PlanReadyScreen(ModalScreen[str]):
    """Returns a Mode's value (accept the plan, then work in that mode) or ``keep``."""

    CSS_PATH = "plan_ready.tcss"
    BINDINGS = [
        Binding("1", "pick(0)", show=False),
        Binding("2", "pick(1)", show=False),
        Binding("3,escape", "pick(2)", "Keep planning"),
        Binding("pageup", "scroll(-1)", show=False),
        Binding("pagedown", "scroll(1)", show=False),
    ]

    def __init__(self, before_plan: Mode) -> None:
        super().__init__()
        self.answers = choices(before_plan)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("The plan is ready. Carry it out?", id="question")
            yield OptionList(
                *(
                    Option(f"{n}. {label}", id=answer)
                    for n, (answer, label) in enumerate(self.answers, 1)
                ),
                id="choices",
            )
            yield Label(
                "↑↓ Enter or 1–3 · Esc keeps planning · PgUp/PgDn scroll the plan", id="keys"
            )

    def action_pick(self, index: int) -> None:
        self.dismiss(self.answers[index][0])

    def action_scroll(self, pages: int) -> None:
        from agent_tui.ui.widgets.transcript import Transcript

        transcript = self.app.screen_stack[0].query_one(Transcript)
        (transcript.scroll_page_up if pages < 0 else transcript.scroll_page_down)()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id or KEEP_PLANNING)
