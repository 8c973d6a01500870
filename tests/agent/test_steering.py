"""Steering: a message sent while a turn runs reaches the model after that round's tool results,
and every request stays valid for both APIs (issue 17.1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui import events as ev
from tests.agent.conftest import FAKE_KEY_ENV, fake_agent
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems

READ = {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "notes.txt"}}]}


@pytest.mark.parametrize("api", ["anthropic", "openai"])
async def test_steering_lands_after_tool_results_in_the_next_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    monkeypatch.setenv(FAKE_KEY_ENV, "k")
    (tmp_path / "notes.txt").write_text("alpha\n")
    with FakeLLM([READ, {"text": "Done, in French."}]) as fake:
        agent = fake_agent(tmp_path, fake, api)
        seen: list[ev.Event] = []
        async for event in agent.run("read notes"):
            seen.append(event)
            if isinstance(event, ev.ToolCallStarted):
                agent.steer("answer in French")  # the user types while the tool runs
        await agent.aclose()
        first, second = fake.requests
    assert "answer in French" not in str(first)
    assert [e.texts for e in seen if isinstance(e, ev.SteeringDelivered)] == [("answer in French",)]
    for body in fake.requests:
        assert problems(body, api) == []
    text = str(second["messages"])
    assert text.index("alpha") < text.index("answer in French")  # after the tool result
    assert agent.steering == []


async def test_steering_left_when_the_turn_ends_without_another_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAKE_KEY_ENV, "k")
    with FakeLLM([{"text": "Hello."}]) as fake:
        agent = fake_agent(tmp_path, fake, "anthropic")
        async for event in agent.run("hi"):
            if isinstance(event, ev.ResponseStarted):
                agent.steer("too late for this turn")
        await agent.aclose()
        (only,) = fake.requests
    assert "too late" not in str(only)
    assert agent.take_steering() == ["too late for this turn"]
    assert agent.steering == []
