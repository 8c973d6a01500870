"""Typing must not answer a question that opens under it (issue 22 §1).

A person typing a queued message while the model streamed had letters taken as dialog keys: ``a``
stored an *always* grant for ``touch`` and the command ran; Enter ran "Allow once", the focused
button. These tests run the real app with the questions' real wait for a pause
(``typing_guard``) and step the app's clock instead of sleeping: keys typed as a question opens
go to the prompt and answer nothing (checked on disk: no ``approvals.json``, no file from the
command); after a pause they answer; Enter alone never allows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.screen import Screen

from agent_tui.approvals.trust import trust_answer
from agent_tui.approvals.types import Decision, Scope
from agent_tui.mcp.types import InputSpec, SamplingRequest
from agent_tui.modes import Mode
from agent_tui.sessions.store import SessionInfo
from agent_tui.ui.app import AgentApp
from agent_tui.ui.key_guard import NOTICE, QUIET_S, GuardedModal, KeyGuard
from agent_tui.ui.screens.confirm_clear import ConfirmClearScreen
from agent_tui.ui.screens.elicit import ElicitScreen
from agent_tui.ui.screens.elicit_url import ElicitUrlScreen
from agent_tui.ui.screens.mcp_input import McpInputScreen
from agent_tui.ui.screens.rewind import PromptChoice, RewindScreen
from agent_tui.ui.screens.round_limit import RoundLimitScreen
from agent_tui.ui.screens.sampling_consent import SamplingConsentScreen
from agent_tui.ui.screens.session_picker import OtherWorkspaceScreen
from agent_tui.ui.screens.trust import TrustScreen
from agent_tui.ui.screens.undo_conflicts import UndoConflictsScreen
from agent_tui.ui.widgets.elicit_fields import parse_schema
from agent_tui.ui.widgets.plan_offer import PlanOffer
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import running_app
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until
from tests.ui.test_live_output import FrozenClock
from tests.ui.test_modes_app import make_app, plan_until_offered

pytestmark = pytest.mark.usefixtures("typing_guard")

TOUCHED = "made-by-touch"
TYPED_BEFORE = "so what about "
TYPED_AFTER = "always say yes"


def touch_agent(make_agent: MakeAgent) -> Harness:
    call = {"id": "t1", "name": "run_in_terminal", "input": {"command": f"touch {TOUCHED}"}}
    turns = [{"text": "Let me look at the tests first.", "tool_calls": [call]}, {"text": "ok"}]
    return make_agent(turns, chunk_delay=0.01, builtin=True)


def guarded_app(h: Harness) -> tuple[AgentApp, FrozenClock]:
    app = AgentApp(h.agent)
    clock = app.clock = FrozenClock()
    return app, clock


def keys_shown(app: AgentApp) -> bool:
    """The question's key legend is on screen (it is armed), not the notice."""
    return not app.screen.has_class("-unarmed")


async def pause_typing(pilot: Pilot[Any], app: AgentApp, clock: FrozenClock) -> None:
    """The person stops typing: the clock moves past the quiet time, the keys come back."""
    clock.now += QUIET_S + 0.1
    await wait_until(pilot, lambda: keys_shown(app), "the question to take keys")


def nothing_granted(h: Harness) -> None:
    grants = h.agent.deps.approvals.grants
    assert not grants.path.exists()  # approvals.json: no workspace or always grant
    assert grants.grants() == []  # nor a session one
    assert not (h.workspace / TOUCHED).exists()  # and the command did not run


def test_keys_keep_the_guard_off_while_they_come_faster_than_the_quiet_time() -> None:
    clock = FrozenClock()
    guard = KeyGuard(clock, quiet=0.6)
    for _ in range(5):  # typing for two seconds, a key every 0.4 s
        clock.now += 0.4
        assert not guard.key_pressed()
    clock.now += 0.59
    assert not guard.armed
    clock.now += 0.01
    assert guard.armed and guard.key_pressed()
    assert guard.key_pressed()  # once armed it stays armed (a reason being typed)


async def test_typing_as_the_approval_opens_grants_nothing_and_goes_to_the_prompt(
    make_agent: MakeAgent,
) -> None:
    h = touch_agent(make_agent)
    app, clock = guarded_app(h)
    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "look at the tests")
        await pilot.press(*TYPED_BEFORE)  # typed while the answer streams: the dialog may open
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press(*TYPED_AFTER, "enter", "a", "y")  # the keys that granted on main
        await pilot.pause()
        assert type(app.screen).__name__ == "ApprovalScreen"
        assert app.screen.query_one("#guard-notice").display
        assert not app.screen.query_one("#buttons").display
        assert app.prompt_input.text == TYPED_BEFORE + TYPED_AFTER + "ay"
        nothing_granted(h)

        await pause_typing(pilot, app, clock)
        assert app.screen.focused is None  # no button takes Enter
        await pilot.press("enter", "enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ApprovalScreen"  # Enter alone allowed nothing
        nothing_granted(h)
        await pilot.press("n", "enter")  # deny, no reason
        await wait_idle(pilot)
        nothing_granted(h)
        assert app.prompt_input.text == TYPED_BEFORE + TYPED_AFTER + "ay"  # nothing lost


async def test_after_a_pause_in_typing_the_keys_answer(make_agent: MakeAgent) -> None:
    h = touch_agent(make_agent)
    app, clock = guarded_app(h)
    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "look at the tests")
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("a")
        await pilot.pause()
        nothing_granted(h)
        await pause_typing(pilot, app, clock)
        await pilot.press("a")  # now it is an answer: always allow `touch`
        await wait_idle(pilot)
        assert app.prompt_input.text == "a"  # the first one was typing
    assert (h.workspace / TOUCHED).exists()
    assert "touch" in h.agent.deps.approvals.grants.path.read_text(encoding="utf-8")


async def test_enter_alone_never_allows_even_when_the_dialog_takes_keys(
    make_agent: MakeAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agent_tui.ui.key_guard.QUIET_S", 0.0)  # armed at once
    h = touch_agent(make_agent)
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "look at the tests")
        await wait_screen(pilot, "ApprovalScreen")
        assert keys_shown(app) and app.screen.focused is None
        for _ in range(3):
            await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "ApprovalScreen"
        nothing_granted(h)
        await pilot.press("n", "enter")
        await wait_idle(pilot)
    nothing_granted(h)


async def test_typing_as_the_trust_question_opens_does_not_trust_the_folder(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text("[tools]\nauto_approve = true\n", encoding="utf-8")
    h = make_agent([{"text": "hi"}])
    app, clock = guarded_app(h)
    async with app.run_test(size=(100, 32)) as pilot:
        await wait_screen(pilot, "TrustScreen")
        await pilot.press(*"yes", "enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "TrustScreen"
        assert trust_answer(h.workspace) is None
        assert app.prompt_input.text == "yes"
        await pause_typing(pilot, app, clock)
        await pilot.press("n")
        await pilot.pause()
    assert trust_answer(h.workspace) is False


async def test_typing_as_the_plan_offer_opens_does_not_carry_the_plan_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "PLAN: create a.txt"}, {"text": "more"}])
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    app.clock = FrozenClock()  # never moves: the offer stays unarmed
    async with app.run_test(size=(120, 40)) as pilot:
        await plan_until_offered(pilot, app)
        offer = app.query_one(PlanOffer)
        assert offer.has_class("-unarmed") and offer.query_one("#guard-notice").display
        await pilot.press("enter")  # would pick "carry it out"
        await pilot.pause()
        assert app.query(PlanOffer) and app.front.mode is Mode.PLAN
        await pilot.press("1", "2")  # typed text: the offer goes, the prompt takes them
        await pilot.pause()
        assert not app.query(PlanOffer)
        assert app.prompt_input.text == "12"
        assert app.front.mode is Mode.PLAN
        assert len(fake_llm.requests) == 1  # nothing was sent to carry the plan out


def _screens() -> list[tuple[str, Callable[[], Screen[Any]], str, object]]:
    """(name, a question, its answering key, the answer that key gives)."""
    request = SamplingRequest(({"role": "user", "content": "hi"},), system="", max_tokens=10)
    session = SessionInfo("s1", Path("/s1.jsonl"), "/elsewhere", "m", "t", 0.0, 0.0)
    fields = parse_schema({"type": "object", "properties": {"name": {"type": "string"}}})
    return [
        ("trust", lambda: TrustScreen("/ws", ["tools.auto_approve = true"]), "y", True),
        (
            "sampling",
            lambda: SamplingConsentScreen("srv", request),
            "a",
            Decision(allow=True, scope=Scope.ALWAYS),
        ),
        ("round_limit", lambda: RoundLimitScreen(20), "c", True),
        ("confirm_clear", lambda: ConfirmClearScreen(3), "y", True),
        ("undo_conflicts", lambda: UndoConflictsScreen(["a.txt"]), "o", "overwrite"),
        ("elicit_url", lambda: ElicitUrlScreen("srv", "sign in", "https://x.test/"), "n", None),
        ("mcp_input", lambda: McpInputScreen("srv", InputSpec(id="token")), "enter", ""),
        ("elicit", lambda: ElicitScreen("srv", "name?", fields), "ctrl+s", None),
        ("rewind", lambda: RewindScreen([PromptChoice(4, "fix it", 2)]), "b", (4, "both")),
        ("other_workspace", lambda: OtherWorkspaceScreen(session), "y", True),
    ]


@pytest.mark.parametrize(
    ("name", "make", "key", "answer"), _screens(), ids=[s[0] for s in _screens()]
)
async def test_every_question_that_acts_on_one_key_waits_for_a_pause(
    make_agent: MakeAgent, name: str, make: Callable[[], Screen[Any]], key: str, answer: object
) -> None:
    """Each sibling of the approval dialog: keys typed as it opens answer nothing and reach the
    prompt; after a pause the same key answers."""
    h = make_agent([{"text": "hi"}])
    app, clock = guarded_app(h)
    answers: list[object] = []
    async with app.run_test(size=(100, 32)) as pilot:
        screen = make()
        assert isinstance(screen, GuardedModal)
        await app.push_screen(screen, answers.append)
        await pilot.pause()
        assert str(screen.query_one("#guard-notice").render()) == NOTICE
        await pilot.press("x", key, "enter", "z")
        await pilot.pause()
        assert answers == [] and app.screen is screen
        assert screen.focused is None  # a form's field too: typing must not fill it
        typed = "x" + (key if len(key) == 1 else "") + "z"
        assert app.prompt_input.text == typed
        await pause_typing(pilot, app, clock)
        await pilot.press(key)
        await wait_until(pilot, lambda: answers, f"the {name} question to be answered")
    if name == "elicit":
        assert getattr(answers[0], "action", None) == "accept"
    elif name == "elicit_url":
        assert getattr(answers[0], "action", None) == "decline"
    else:
        assert answers == [answer]
