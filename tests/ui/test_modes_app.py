"""Modes in the app (issue 17 item 2): Shift+Tab, the status bar, plan mode and its offer to carry
the plan out, against the fake LLM server (real HTTP, real tools, real files)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.build import build_agent
from agent_tui.modes import Mode
from agent_tui.modes.notes import PLAN_OFF, PLAN_ON
from agent_tui.ui.app import AgentApp
from agent_tui.ui.mode_flow import AS_TODO, GO_AHEAD
from agent_tui.ui.widgets.composer import Composer
from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.plan_offer import PlanOffer
from agent_tui.ui.widgets.status_bar import StatusBar
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import fake_anthropic_config
from tests.ui.helpers import send, terminal_sends, wait_idle, wait_screen, wait_until


def make_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeLLM, mode: Mode = Mode.ASK
) -> AgentApp:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "app.py").write_text("print('hi')\n")
    config = fake_anthropic_config(tmp_path, monkeypatch, fake, workspace, name="fake")
    agent = build_agent(config)
    agent.deps.approvals.modes.set(mode)
    return AgentApp(agent)


async def plan_until_offered(pilot: Pilot[Any], app: AgentApp, prompt: str = "plan") -> None:
    """Send ``prompt`` (the app in plan mode) and wait for the plan offer."""
    await send(pilot, prompt)
    await wait_until(pilot, lambda: app.query(PlanOffer), "the plan offer")


def bar(app: AgentApp) -> str:
    return str(app.query_one(StatusBar).render())


def create(path: str, content: str = "x\n") -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": "c1", "name": "create_file", "input": {"path": path, "content": content}}
        ]
    }


def texts(message: dict[str, Any]) -> list[str]:
    content = message["content"]
    return [content] if isinstance(content, str) else [b.get("text", "") for b in content]


async def test_shift_tab_cycles_the_modes_and_the_status_bar_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(80, 24)) as pilot:
        seen = []
        for _ in range(4):
            seen.append((app.front.mode, bar(app)))
            await pilot.press("shift+tab")
            await pilot.pause()
        assert [m for m, _ in seen] == [Mode.ASK, Mode.ACCEPT_EDITS, Mode.PLAN, Mode.ASK]
        for mode, text in seen:
            assert f"mode: {mode.label}" in text, text  # at 80 columns too
        assert app.prompt_input.has_focus  # Shift+Tab did not move the focus away


async def test_shift_tab_in_a_dialog_moves_its_focus_and_keeps_the_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([create("new.txt"), {"text": "done"}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "make a file")
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.front.mode is Mode.ASK
        assert "mode: ask" in bar(app)
        await pilot.press("n", "enter")  # deny, no reason
        await wait_idle(pilot)
        assert not (app.workspace / "new.txt").exists()


async def test_accept_edits_writes_without_a_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([create("new.txt", "made\n"), {"text": "done"}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("shift+tab")
        await send(pilot, "make a file")
        await wait_idle(pilot)
        assert (app.workspace / "new.txt").read_text() == "made\n"
        (card,) = app.query(ToolCard)
        assert card.state.status == "done"
        assert "accept-edits mode" in card.state.decided


async def test_plan_mode_refuses_an_edit_then_offers_the_plan_and_carries_it_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            create("new.txt"),
            {"text": "PLAN: 1. create new.txt"},
            create("new.txt", "built\n"),
            {"text": "Built."},
        ]
    )
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("shift+tab", "shift+tab")  # plan
        await plan_until_offered(pilot, app, "plan a file")
        assert not (app.workspace / "new.txt").exists()
        (card,) = app.query(ToolCard)
        assert (
            card.state.status == "denied"
            and "plan mode, only read-only tools run" in card.state.decided
        )
        notes = [n.text for n in app.query(Note)]
        assert any("Plan mode: the model is told" in n for n in notes)
        assert PLAN_ON in texts(fake_llm.requests[0]["messages"][-1])

        offer = app.query_one(PlanOffer)
        assert not app.query_one(Composer).display  # the offer stands where the prompt was
        labels = [label for _, label in offer.answers]
        assert "accept edits" in labels[0]  # the mode plan mode was entered from comes first
        await pilot.press("1")  # carry it out, accepting edits as before
        await wait_until(pilot, lambda: len(fake_llm.requests) == 4, "the plan carried out")
        await wait_idle(pilot)
        assert app.front.mode is Mode.ACCEPT_EDITS
        assert (app.workspace / "new.txt").read_text() == "built\n"  # no dialog: accept edits
        # The todo tool is on: the plan is to be carried out as its list.
        assert [m.text for m in app.query(UserMessage)] == ["plan a file", GO_AHEAD + AS_TODO]
        go = texts(fake_llm.requests[2]["messages"][-1])
        assert go == [GO_AHEAD + AS_TODO, PLAN_OFF.format(mode="accept-edits")]
        assert "mode: accept edits" in bar(app)
        assert not app.query(PlanOffer) and app.query_one(Composer).display


async def test_keep_planning_stays_in_plan_mode_and_sends_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "PLAN A"}, {"text": "PLAN B"}])
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    async with app.run_test(size=(120, 40)) as pilot:
        await plan_until_offered(pilot, app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.front.mode is Mode.PLAN
        assert len(fake_llm.requests) == 1
        assert any("Still in plan mode" in n.text for n in app.query(Note))
        assert app.prompt_input.has_focus
        await plan_until_offered(pilot, app, "use fewer steps")  # still planning, told once
        assert texts(fake_llm.requests[1]["messages"][-1]) == ["use fewer steps"]


async def test_a_message_queued_while_planning_goes_before_the_offer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "PLAN A"}, {"text": "PLAN B"}])
    fake_llm.hold_after = 0
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "plan")
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1, "the first request")
        await send(pilot, "and mention tests")
        fake_llm.release.set()
        await wait_until(pilot, lambda: len(fake_llm.requests) == 2, "the queued message")
        await wait_until(pilot, lambda: app.query(PlanOffer), "the plan offer")
        assert "and mention tests" in json.dumps(fake_llm.requests[1]["messages"][-1])


async def test_the_running_turn_shows_its_elapsed_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "One. Two. Three."}])
    fake_llm.hold_after = 6  # answering, then held: working, not waiting
    now = [100.0]
    app = make_app(tmp_path, monkeypatch, fake_llm)
    app.clock = lambda: now[0]
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "hi")
        await wait_until(pilot, lambda: "working" in bar(app), "the answer streaming")
        now[0] += 75
        app.query_one(StatusBar).refresh()
        await pilot.pause()
        assert "1 min 15 s" in bar(app)
        fake_llm.release.set()
        await wait_idle(pilot)
        assert "○ ready" in bar(app) and "1 min 15 s" not in bar(app)


async def test_typing_over_the_offer_keeps_planning_with_what_is_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "PLAN A"}, {"text": "PLAN B"}])
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    async with app.run_test(size=(80, 24)) as pilot:
        await plan_until_offered(pilot, app)
        await pilot.press(*"fewer steps")
        await pilot.pause()
        assert not app.query(PlanOffer) and app.query_one(Composer).display
        assert app.prompt_input.text == "fewer steps" and app.prompt_input.has_focus
        assert app.front.mode is Mode.PLAN
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query(PlanOffer), "the next plan's offer")
        assert texts(fake_llm.requests[1]["messages"][-1]) == ["fewer steps"]


@pytest.mark.parametrize(
    "turn",
    [
        {"text": "never", "fault": {"status": 401}},  # an error: nothing was planned
        {"text": ""},  # an empty answer
        {"text": "PLAN, cut", "stop_reason": "max_tokens"},  # cut: Continue asks for the rest
    ],
    ids=["error", "empty", "cut"],
)
async def test_no_plan_offer_after_a_turn_that_did_not_end_with_a_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM, turn: dict[str, Any]
) -> None:
    fake_llm.set_script([turn])
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "plan")
        await wait_idle(pilot)
        await pilot.pause()
        assert len(fake_llm.requests) == 1
        assert not app.query(PlanOffer) and app.query_one(Composer).display
        assert app.prompt_input.has_focus


def plan_with_a_card() -> list[dict[str, Any]]:
    """A plan turn that reads a file first: its card has a Space toggle that took the spaces."""
    read = {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "app.py"}}]}
    return [read, {"text": "PLAN A"}, {"text": "PLAN B"}]


@pytest.mark.parametrize(
    "data",
    ["change step 2 please", "\x1b[200~change step 2 please\x1b[201~"],
    ids=["typed-fast", "bracketed-paste"],
)
async def test_text_typed_fast_or_pasted_over_the_offer_reaches_the_prompt_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM, data: str
) -> None:
    """Issue 23 §9: typed fast, the spaces went to a card's toggle ("changestep2please"), and a
    "2" could have carried the plan out; a bracketed paste was ignored."""
    fake_llm.set_script(plan_with_a_card())
    app = make_app(tmp_path, monkeypatch, fake_llm, Mode.PLAN)
    async with app.run_test(size=(80, 24)) as pilot:
        await plan_until_offered(pilot, app)
        await terminal_sends(pilot, data)
        await wait_until(pilot, lambda: not app.query(PlanOffer), "the offer to go")
        assert app.prompt_input.text == "change step 2 please" and app.prompt_input.has_focus
        assert app.front.mode is Mode.PLAN  # "2" carried nothing out
        assert not any(card.details_open for card in app.query(ToolCard))  # no Space reached it
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.query(PlanOffer), "the next plan's offer")
        assert texts(fake_llm.requests[-1]["messages"][-1]) == ["change step 2 please"]
