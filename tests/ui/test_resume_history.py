"""A resumed session's first screen is drawn from a skim of its file; the conversation is parsed
after it, in steps between keys (``sessions/history.py``), and a prompt waits for the whole of
it (issue 23 item 1). Real agent on the fake LLM server."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.loop import Agent
from agent_tui.agent.resume import attach_app
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.sessions import history as history_module
from agent_tui.sessions.history import History
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import Note
from tests.agent.conftest import FAKE_KEY_ENV
from tests.fakes.llm_server import FakeLLM
from tests.sessions.shapes import record_shape
from tests.ui.helpers import send, wait_until


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


def resumed(workspace: Path, fake: FakeLLM, turns: int) -> tuple[AgentApp, Agent, History]:
    """The app ``--continue``-ing a saved session of ``turns`` turns of one call each
    (4 messages a turn), and the history its conversation is parsed from."""
    record_shape(workspace.parent / "state", workspace.resolve(), turns, 1)
    settings = {
        "provider": "anthropic",
        "base_url": fake.url,
        "name": "fake-model",
        "api_key_env": FAKE_KEY_ENV,
        "max_retries": 0,
        "context_window": 50_000_000,  # the whole history goes in the request, unpruned
    }
    config = load_config(workspace, cli={"model": settings}, env={}, user_file=workspace / "no")
    agent = build_agent(config)
    start = attach_app(agent, cont=True, resume_id=None)
    assert start.loaded is not None and start.loaded.history is not None
    return AgentApp(agent, session=start), agent, start.loaded.history


def logged(monkeypatch: pytest.MonkeyPatch, app: AgentApp, log: list[str]) -> None:
    """``log`` gets "paint" for each screen update written and "step" for each parsing step."""
    display, step = app._display, History.step

    def painted(screen: Any, renderable: Any) -> None:
        log.append("paint")
        display(screen, renderable)

    def stepped(self: History, size: int | None = None) -> bool:
        log.append("step")
        return step(self, size)

    monkeypatch.setattr(app, "_display", painted)
    monkeypatch.setattr(History, "step", stepped)


async def test_the_first_screen_is_painted_before_the_conversation_is_parsed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log: list[str] = []
    with FakeLLM([]) as fake:
        app, agent, history = resumed(workspace, fake, turns=2500)  # 10,000 messages
        logged(monkeypatch, app, log)
        assert history.steps == 0  # attaching the session parsed none of them
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(pilot, lambda: history.done, "the conversation parsed")
            assert "paint" in log and "step" in log
            assert log.index("paint") < log.index("step")
            assert any("10,000 messages" in n.text for n in app.query(Note))  # type: ignore[attr-defined]
            assert history.steps > 1  # in steps, not at once
            assert len(agent.conversation.messages) == 10_000


async def test_a_prompt_sent_at_once_waits_for_the_whole_history(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse is held from starting: the prompt's request must not go out until it is let
    go, and then carries every message (a sync reader of the conversation on the way would
    parse it all at once and send early: that fails here too)."""
    release = asyncio.Event()
    steps = History._steps

    async def held(self: History) -> Any:
        await release.wait()
        return await steps(self)

    monkeypatch.setattr(History, "_steps", held)
    with FakeLLM([{"text": "after resume"}]) as fake:
        app, agent, history = resumed(workspace, fake, turns=300)  # 1,200 messages
        async with app.run_test(size=(100, 32)) as pilot:
            await send(pilot, "what did we do?")
            for _ in range(20):
                await pilot.pause()
            assert not [r for r in fake.requests if "messages" in r]  # no request yet
            assert not history.done
            release.set()
            await wait_until(pilot, lambda: fake.turns_served == 1, "the request")
            [request] = [r for r in fake.requests if "messages" in r]
            messages = request["messages"]
            assert len(messages) == 1_201
            assert "question 0" in str(messages[0]["content"])
            assert "what did we do?" in str(messages[-1]["content"])
            assert len(agent.conversation.messages) == 1_202  # and the answer


async def test_typing_goes_on_while_the_conversation_is_parsed(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each parsing step notes what the prompt shows then: keys typed during the parse are in
    the prompt between its steps (the parse does not hold the keys until it is done). Steps
    of one message that take a millisecond more each: a parse of seconds, whatever the load."""
    monkeypatch.setattr(history_module, "STEP_MESSAGES", 1)
    seen: list[str] = []
    with FakeLLM([]) as fake:
        app, _, history = resumed(workspace, fake, turns=600)  # 2,400 steps
        step = History.step

        def noted(self: History, size: int | None = None) -> bool:
            seen.append(app.query_one("PromptInput").text)  # type: ignore[attr-defined]
            time.sleep(0.001)  # a slower parse (not a wait for anything)
            return step(self, size)

        monkeypatch.setattr(History, "step", noted)
        async with app.run_test(size=(100, 32)) as pilot:
            app.query_one("PromptInput").focus()
            await wait_until(pilot, lambda: seen, "the parse started")
            for key in "hello":
                await pilot.press(key)
            await wait_until(pilot, lambda: history.done, "the conversation parsed")
            assert app.query_one("PromptInput").text == "hello"  # type: ignore[attr-defined]
    shown = list(dict.fromkeys(seen))  # what the steps saw, in order
    assert shown[0] == "" and len(shown) >= 2, shown  # keys shown while it was parsing
    assert all("hello".startswith(text) for text in shown)
