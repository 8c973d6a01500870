"""Modes in the app: Shift+Tab cycles them; a turn in plan mode that ends with
a plan offers to carry it out (``PlanOffer``, in place of the prompt until answered).

Accepting switches to the chosen mode and sends :data:`GO_AHEAD` as an ordinary, visible prompt;
the agent adds the "plan mode is off" note to it (``modes.notes``). Keeping planning leaves the
mode as it is: what the user types next goes to the model in plan mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events
from textual.await_remove import AwaitRemove
from textual.worker import WorkerState

from agent_tui import events as ev
from agent_tui.modes import Mode
from agent_tui.ui.prompt_focus import focus_now
from agent_tui.ui.widgets.composer import Composer
from agent_tui.ui.widgets.notes import Note
from agent_tui.ui.widgets.plan_offer import KEEP_PLANNING, PlanOffer

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp

GO_AHEAD = "The plan is accepted: carry it out."
# Added when the todo tool is on: the plan becomes the list the person watches.
AS_TODO = " Track its steps with the todo list."
# Turns that did not end with a whole answer: an error, a cut answer (Continue asks for the rest),
# a local command, a prompt a hook blocked.
_NOT_A_PLAN = ("error", "max_tokens", "local_command", "hook_blocked")


class ModeFlow:
    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self._planned = False  # the last turn ended with an answer while in plan mode

    async def cycle(self) -> None:
        """Shift+Tab: the next mode; takes effect at the next tool call, even mid-turn. With the
        plan offer up, leaving plan mode this way answers it: the prompt comes back."""
        self.app.front.cycle_mode()
        self.app.refresh_approval_mode()
        if self.offered and self.app.front.mode is not Mode.PLAN:
            await self._close_offer()

    def _close_offer(self) -> AwaitRemove:
        """Put the prompt back in the offer's place (focused); await the result to be sure the
        offer is gone."""
        self.app.query_one(Composer).display = True
        focus_now(self.app.prompt_input)  # the keys typed on go to it, not to the leaving offer
        return self.app.query(PlanOffer).remove()

    def typed_over_offer(self, event: events.Key) -> None:
        """A printable key no option took, with the offer up: the user is saying what to change.
        The offer goes (still in plan mode) and the key goes on to the prompt."""
        if event.key in self.app.active_bindings:
            return  # 1, 2, 3: the offer's own keys
        self.typing_over_offer(event.character)  # type_into_prompt then inserts the key

    def typing_over_offer(self, character: str | None) -> None:
        """Close the offer if ``character`` is text: also for the offer's own keys (1, 2, 3) when
        they came before the offer took keys (``key_guard``)."""
        if self.offered and character and character.isprintable():
            self._close_offer()

    def typed_over(self) -> None:
        """Text typed over the offer reached the prompt (``PlanOffer.TypedOver``): it goes."""
        if self.offered:
            self._close_offer()

    def pasted_over_offer(self, text: str) -> None:
        """A paste with the offer up: as typing, it says what to change; it goes to the prompt."""
        if self.offered and text:
            self._close_offer()
            self.app.prompt_input.paste(text)

    def turn_finished(self, finished: ev.TurnFinished | None) -> None:
        """Called as a turn's worker ends: did it end with a plan?"""
        self._planned = (
            finished is not None
            and not finished.cancelled
            and finished.stop_reason not in _NOT_A_PLAN
            and bool(finished.text.strip())
            and self.app.front.mode is Mode.PLAN
        )

    def turn_ended(self, state: WorkerState, queued: int) -> None:
        """After the queue had its turn: offer the plan unless more messages are on their way
        (they go to the model still in plan mode; the offer comes after their answer)."""
        planned, self._planned = self._planned, False
        if planned and state == WorkerState.SUCCESS and not queued and not self.offered:
            composer = self.app.query_one(Composer)
            composer.display = False  # what is typed meanwhile waits in it, untouched
            offer = PlanOffer(self.app.front.mode_before_plan, self.app.prompt_input)
            self.app.mount(offer, before=composer)

    @property
    def offered(self) -> bool:
        return bool(self.app.query(PlanOffer))

    async def answered(self, answer: str) -> None:
        """The user chose (``PlanOffer.Answered``): put the prompt back, then act on it."""
        await self._close_offer()
        if answer == KEEP_PLANNING:
            await self.app.transcript.add(
                Note("Still in plan mode: say what to change, or Shift+Tab to leave it.")
            )
            return
        self.app.front.leave_plan(Mode(answer))
        self.app.refresh_approval_mode()
        go_ahead = GO_AHEAD + (AS_TODO if _todo_offered(self.app) else "")
        if self.app.busy:  # a prompt was sent meanwhile: it goes first; this one waits
            self.app.queue_flow.add(go_ahead)
            return
        await self.app.submit(go_ahead)


def _todo_offered(app: AgentApp) -> bool:
    tools = app.front.tools
    return "todo" not in tools.disabled and any(m.name == "todo" for m in tools.manifests())
