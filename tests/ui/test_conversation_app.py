"""The app's side of issue 11.1-3, with a real Agent talking HTTP to the fake LLM server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.loop import CONTINUE_PROMPT
from agent_tui.ui.widgets.continue_note import ContinueNote
from agent_tui.ui.widgets.notes import ErrorNote, Note, UserMessage
from tests.agent.conftest import fake_agent, fake_agent_workspace
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.ui.app_helpers import running_app
from tests.ui.helpers import send, wait_idle, wait_until

PROMPT = "please fix the bug in main.py"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_agent_workspace(tmp_path, monkeypatch)


def user_texts(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for message in body["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.extend(
                [content]
                if isinstance(content, str)
                else [b["text"] for b in content if b.get("type") == "text"]
            )
    return out


@pytest.mark.parametrize("api", ["anthropic", "openai"])
async def test_http_400_then_up_enter_sends_the_prompt_once(workspace: Path, api: str) -> None:
    with FakeLLM([{"text": "Fixed it.", "fault": {"status": 400}}]) as fake:
        async with running_app(fake_agent(workspace, fake, api)) as (app, pilot):
            await send(pilot, PROMPT)
            await wait_idle(pilot)
            assert [n.text for n in app.query(Note) if "HTTP 400" in n.text]
            prompt = app.query_one("PromptInput")
            await pilot.press("up")
            assert prompt.text == PROMPT  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_idle(pilot)
        requests = fake.requests
    assert len(requests) == 2
    assert user_texts(requests[1]) == [PROMPT]
    assert all(problems(body, api) == [] for body in requests)


async def test_an_unanswered_message_is_shown_as_not_in_the_conversation(workspace: Path) -> None:
    """The agent undoes a turn the model never answered; the transcript must not show it as said,
    while an answered message stays as it was."""
    script = [{"text": "x", "fault": {"status": 400}}, {"text": "Hello."}]
    with FakeLLM(script) as fake:
        async with running_app(fake_agent(workspace, fake, "anthropic")) as (app, pilot):
            await send(pilot, "first")
            await wait_idle(pilot)
            await send(pilot, "second")
            await wait_idle(pilot)
            shown = list(app.query(UserMessage))
            assert [m.text for m in shown] == ["first", "second"]
            assert shown[0].has_class("-unanswered")
            assert "not in the conversation" in str(shown[0].render())
            assert not shown[1].has_class("-unanswered")
            assert "not in the conversation" not in str(shown[1].render())
        assert user_texts(fake.requests[-1]) == ["second"]


async def test_a_cut_answer_offers_continue_which_asks_for_the_rest(workspace: Path) -> None:
    script = [
        {"text": "The first half of the answer", "stop_reason": "max_tokens"},
        {"text": " and the second half."},
    ]
    with FakeLLM(script) as fake:
        agent = fake_agent(workspace, fake, "anthropic", max_tokens=900)
        async with running_app(agent) as (app, pilot):
            await send(pilot, "explain")
            await wait_idle(pilot)
            note = app.query_one(ContinueNote)
            assert "cut at max_tokens (900)" in note.message_text
            await pilot.click("#continue")
            await wait_until(pilot, lambda: len(fake.requests) == 2, "the continue request")
            await wait_idle(pilot)
        last = fake.requests[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user"]
    assert last[1]["content"][0]["text"] == "The first half of the answer"
    assert last[2]["content"][0]["text"] == CONTINUE_PROMPT


async def test_an_empty_answer_shows_a_note(workspace: Path) -> None:
    with FakeLLM([{}]) as fake:
        async with running_app(fake_agent(workspace, fake, "openai")) as (app, pilot):
            await send(pilot, "hello")
            await wait_idle(pilot)
            notes = [n.text for n in app.query(Note)]
        assert (
            "The model sent an empty answer (stop reason: end_turn). "
            "Your message was left out of the conversation."
        ) in notes
        assert not app.query(ErrorNote)


async def test_every_request_that_prunes_shows_a_note(workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n} of the big file\n" for n in range(120)))
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"r{n}", "name": "read_file", "input": {"path": "big.txt"}}]}
        for n in range(10)
    ]
    with FakeLLM([*script, {"text": "done"}]) as fake:
        agent = fake_agent(workspace, fake, "openai", context_window=9000, max_tokens=500)
        agent.deps.config.raw.setdefault("agent", {})["compact_at"] = 0  # pruning alone
        async with running_app(agent) as (app, pilot):
            await send(pilot, "read it again and again")
            await wait_idle(pilot)
            notes = [n.text for n in app.query(Note) if n.text.startswith("Context trimmed")]
        pruned = [n for n, r in enumerate(fake.requests, 1) if "output removed" in json.dumps(r)]
    assert len(pruned) >= 3
    # One note per request whose left-out list changed (here each prunes one more output).
    assert [int(t.split("request ")[1].split(")")[0]) for t in notes] == pruned
