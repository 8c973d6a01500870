"""Type-ahead and steering in the app (issue 17.1), against the fake server holding its stream."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.ui.app import AgentApp
from agent_tui.ui.queue_flow import QueuedMessages
from agent_tui.ui.widgets.prompt_input import PromptInput
from agent_tui.ui.widgets.status_bar import StatusBar
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.ui.app_helpers import fake_anthropic_config
from tests.ui.helpers import send, wait_idle, wait_until


def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeLLM) -> AgentApp:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\n")
    config = fake_anthropic_config(tmp_path, monkeypatch, fake, workspace, name="fake")
    return AgentApp(build_agent(config))


def last_user_text(body: dict[str, object]) -> str:
    return str(body["messages"][-1])  # type: ignore[index]


async def test_enter_during_a_turn_queues_and_sends_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "One."}, {"text": "Two."}])
    fake_llm.hold_after = 0  # the first answer waits until released
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 32)) as pilot:
        await send(pilot, "first")
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1, "the first request")
        await send(pilot, "second")
        await pilot.pause()
        assert app.queue_flow.queued == ["second"]
        assert "queued: second" in str(app.query_one(QueuedMessages).render())
        assert "1 queued" in str(app.query_one(StatusBar).render())
        assert app.prompt_input.text == ""  # not left in the prompt, not refused
        fake_llm.release.set()
        await wait_until(pilot, lambda: len(fake_llm.requests) == 2, "the queued message sent")
        await wait_idle(pilot)
        assert "second" in last_user_text(fake_llm.requests[1])
        assert "second" not in str(fake_llm.requests[0])
        assert app.queue_flow.queued == []
        assert not app.query_one(QueuedMessages).has_class("-shown")


async def test_up_on_an_empty_prompt_takes_the_queued_message_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "One."}])
    fake_llm.hold_after = 0
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 32)) as pilot:
        await send(pilot, "first")
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1, "the first request")
        await send(pilot, "oops, wrong")
        await pilot.pause()
        await pilot.press("up")
        await pilot.pause()
        assert app.prompt_input.text == "oops, wrong"  # back to edit, or to clear away
        assert app.queue_flow.queued == []
        app.prompt_input.clear()
        fake_llm.release.set()
        await wait_idle(pilot)
        await pilot.pause()
        assert len(fake_llm.requests) == 1  # the removed message was never sent


@pytest.mark.parametrize("key", ["alt+enter", "ctrl+s"])  # Ctrl+S: the fallback (issue 23 §8)
async def test_alt_enter_steers_after_the_tool_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM, key: str
) -> None:
    read = {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "notes.txt"}}]}
    fake_llm.set_script([read, {"text": "En français."}])
    fake_llm.hold_after = 0
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 32)) as pilot:
        await send(pilot, "read notes")
        await wait_until(pilot, lambda: len(fake_llm.requests) == 1, "the first request")
        assert app.prompt_input.check_action("steer", ()) is True  # in the footer now
        prompt = app.query_one(PromptInput)
        prompt.load_text("answer in French")
        await pilot.press(key)
        await pilot.pause()
        fake_llm.release.set()
        await wait_idle(pilot)
        first, second = fake_llm.requests
        assert "answer in French" not in str(first)
        text = str(second["messages"])
        assert text.index("alpha") < text.index("answer in French")
        assert all(problems(body, "anthropic") == [] for body in fake_llm.requests)
        assert app.prompt_input.check_action("steer", ()) is False  # idle: Alt+Enter is newline
