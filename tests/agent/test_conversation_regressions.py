"""Regressions of issue 11.1-2 over both APIs: the real loop against the fake LLM server."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui import events as ev
from agent_tui.agent.loop import Agent
from tests.agent.conftest import fake_agent, fake_agent_workspace
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems

APIS = ["anthropic", "openai"]
PROMPT = "please fix the bug in main.py"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    ws = fake_agent_workspace(tmp_path, monkeypatch)
    (ws / "main.py").write_text("print('hi')\n")
    return ws


async def run_turn(agent: Agent, text: str, cancel_on: type[ev.Event] | None = None) -> list[Any]:
    """Run a turn; cancel it (as Esc does) when an event of type ``cancel_on`` arrives."""
    seen: list[Any] = []

    async def consume() -> None:
        this = asyncio.current_task()
        assert this is not None
        async for event in agent.run(text):
            seen.append(event)
            if cancel_on is not None and isinstance(event, cancel_on):
                this.cancel()

    try:
        await asyncio.create_task(consume())
    except asyncio.CancelledError:
        pass
    return seen


def user_texts(body: dict[str, Any]) -> list[str]:
    """Every user text as the server received it, one entry per text block / message."""
    out = []
    for message in body["messages"]:
        if message["role"] != "user":
            continue
        content = message["content"]
        if isinstance(content, str):
            out.append(content)
        else:
            out.extend(b["text"] for b in content if b.get("type") == "text")
    return out


def assert_valid(fake: FakeLLM, api: str) -> None:
    for body in fake.requests:
        assert problems(body, api) == [], json.dumps(body["messages"], indent=1)


@pytest.mark.parametrize("api", APIS)
async def test_prompt_sent_again_after_http_400_reaches_the_model_once(
    workspace: Path, api: str
) -> None:
    with FakeLLM([{"text": "fixed", "fault": {"status": 400}}]) as fake:
        agent = fake_agent(workspace, fake, api)
        first = await run_turn(agent, PROMPT)
        assert any(isinstance(e, ev.ErrorEvent) for e in first)
        await run_turn(agent, PROMPT)  # Up, Enter
        await agent.aclose()
    retried = fake.requests[-1]
    assert user_texts(retried) == [PROMPT]
    assert_valid(fake, api)


@pytest.mark.parametrize("api", APIS)
async def test_ok_go_on_after_esc_during_a_tool_is_sent_once_after_the_tool_result(
    workspace: Path, api: str
) -> None:
    call = {"id": "call_w", "name": "wait_forever", "input": {}}
    with FakeLLM([{"tool_calls": [call]}, {"text": "going on"}]) as fake:
        agent = fake_agent(workspace, fake, api)
        await run_turn(agent, PROMPT, cancel_on=ev.ToolCallDecided)
        await run_turn(agent, "ok go on")
        await agent.aclose()
    last = fake.requests[-1]
    assert user_texts(last) == [PROMPT, "ok go on"]
    if api == "anthropic":
        blocks = last["messages"][-1]["content"]
        assert [b["type"] for b in blocks] == ["tool_result", "text"]
        assert blocks[0]["tool_use_id"] == "call_w" and blocks[1]["text"] == "ok go on"
    else:
        roles = [m["role"] for m in last["messages"]]
        assert roles == ["system", "user", "assistant", "tool", "user"]
    assert_valid(fake, api)


@pytest.mark.parametrize("api", APIS)
async def test_after_an_empty_answer_the_next_request_has_no_two_user_messages_in_a_row(
    workspace: Path, api: str
) -> None:
    with FakeLLM([{}, {"text": "hello"}]) as fake:
        agent = fake_agent(workspace, fake, api)
        events = await run_turn(agent, "first question")
        await run_turn(agent, "second question")
        await agent.aclose()
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert notices == [
        (
            "The model sent an empty answer (stop reason: end_turn). "
            "Your message was left out of the conversation."
        )
    ]
    assert user_texts(fake.requests[-1]) == ["second question"]
    assert_valid(fake, api)


@pytest.mark.parametrize("api", APIS)
async def test_an_answer_cut_at_max_tokens_says_so_and_offers_to_continue(
    workspace: Path, api: str
) -> None:
    with FakeLLM([{"text": "The first half of", "stop_reason": "max_tokens"}]) as fake:
        agent = fake_agent(workspace, fake, api, max_tokens=1234)
        events = await run_turn(agent, "explain")
        await agent.aclose()
    (notice,) = [e for e in events if isinstance(e, ev.Notice)]
    assert "cut at max_tokens (1234)" in notice.text and notice.action == "continue"
    assert events[-1].stop_reason == "max_tokens"
    assert agent.conversation.messages[-1].text == "The first half of"  # kept, to continue from


async def test_openai_user_text_keeps_attachment_and_request_apart(workspace: Path) -> None:
    with FakeLLM([{"text": "ok"}]) as fake:
        agent = fake_agent(workspace, fake, "openai")
        await run_turn(agent, "#file:main.py explain")
        await agent.aclose()
    (content,) = user_texts(fake.requests[-1])
    assert content.endswith("</attachment>\n\n#file:main.py explain")


async def test_a_turn_closed_at_an_event_takes_its_prompt_back_before_run_returns(
    workspace: Path,
) -> None:
    """A front end that stops reading mid-turn closes the turn (``front.submit`` does, when the
    app's worker is cancelled while it draws an event). The prompt the model never answered is
    taken back by the time the close returns, so ``run()`` saves the session without it, not
    later, when the event loop finalises an inner generator left open."""
    with FakeLLM([{"text": "never read"}]) as fake:
        agent = fake_agent(workspace, fake, "anthropic")
        turn = agent.run(PROMPT)
        async for event in turn:
            if isinstance(event, ev.RequestSent):
                break
        assert [m.role for m in agent.conversation.messages] == ["user"]
        await turn.aclose()
        assert agent.conversation.messages == []
        await agent.aclose()
