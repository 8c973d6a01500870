"""Every request stays valid for both APIs, whatever happens in the turns before it (issue 11.1).

The real loop talks to the fake LLM server over HTTP (Anthropic Messages and OpenAI Chat
Completions); hypothesis draws sequences of turns with tool rounds, approvals allowed and denied,
HTTP errors, broken streams, empty and cut answers, cancels while streaming, while a tool runs and
while an approval is open, and prompts sent again after a failure. Every request the server
received is then checked by ``tests/fakes/validate.py`` (strict like the real APIs) and for
duplicated text: each prompt appears exactly as often as turns that kept it were sent.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui import events as ev
from agent_tui.agent.loop import Agent
from agent_tui.approvals.types import Decision
from tests.agent.conftest import FAKE_KEY_ENV, fake_agent
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems

APIS = ["anthropic", "openai"]
MIDDLE = ["read", "allow", "deny", "pair"]  # rounds that call tools; the turn goes on
ENDINGS = [
    "text",
    "thinking_then_text",
    "thinking_only",
    "empty",
    "cut_at_max_tokens",
    "http_400",
    "http_500",
    "stream_error",
    "connection_cut",
    "cancel_while_streaming",
    "cancel_during_tool",
    "cancel_during_approval",
]
# Endings after which the turn kept nothing of the model's when no tool round came before.
NOTHING_KEPT = {"empty", "thinking_only", "http_400", "http_500"}
FILLER = " and more words to stream" * 8


@dataclass(frozen=True)
class PlannedTurn:
    retry: bool  # send the previous turn's prompt again
    middle: tuple[str, ...]
    ending: str


turn_plans = st.builds(
    PlannedTurn,
    retry=st.booleans(),
    middle=st.lists(st.sampled_from(MIDDLE), max_size=3).map(tuple),
    ending=st.sampled_from(ENDINGS),
)


class Scripter:
    """Unique ids and markers, so each call id and each answer is recognisable."""

    def __init__(self) -> None:
        self.ids = itertools.count(1)

    def call(self, name: str) -> dict[str, Any]:
        n = next(self.ids)
        if name == "read_file":
            return {"id": f"call_{n}", "name": name, "input": {"path": "notes.txt"}}
        if name == "create_file":
            return {"id": f"call_{n}", "name": name, "input": {"path": f"f{n}.txt", "content": "x"}}
        return {"id": f"call_{n}", "name": name, "input": {}}

    def answer(self) -> str:
        return f"answer-{next(self.ids)}; {FILLER}"

    def script(self, plan: PlannedTurn) -> list[dict[str, Any]]:
        turns: list[dict[str, Any]] = []
        for step in plan.middle:
            calls = {
                "read": [self.call("read_file")],
                "allow": [self.call("create_file")],
                "deny": [self.call("create_file")],
                "pair": [self.call("read_file"), self.call("create_file")],
            }[step]
            turns.append({"tool_calls": calls})
        ending = plan.ending
        if ending == "text" or ending == "cancel_while_streaming":
            turns.append({"text": self.answer()})
        elif ending == "empty":
            turns.append({})
        elif ending == "thinking_then_text":
            turns.append({"thinking": "let me think", "text": self.answer()})
        elif ending == "thinking_only":
            turns.append({"thinking": "thinking, but never answering"})
        elif ending == "cut_at_max_tokens":
            turns.append({"text": self.answer(), "stop_reason": "max_tokens"})
        elif ending in ("http_400", "http_500"):
            turns.append({"text": "never sent", "fault": {"status": int(ending[-3:])}})
        elif ending == "stream_error":
            turns.append({"text": self.answer(), "fault": "stream_error"})
        elif ending == "connection_cut":
            turns.append({"text": self.answer(), "fault": "cut"})
        elif ending == "cancel_during_tool":
            turns.append({"tool_calls": [self.call("wait_forever")]})
        elif ending == "cancel_during_approval":
            turns.append({"tool_calls": [self.call("create_file")]})
        return turns


async def drive(agent: Agent, prompt: str, plan: PlannedTurn) -> None:
    """Run one turn as a user would: answer approvals, press Esc where the plan says."""
    approvals = iter(
        [
            allow
            for step in plan.middle
            for allow in {"read": [], "allow": [True], "deny": [False], "pair": [True]}[step]
        ]
    )

    async def consume() -> None:
        this = asyncio.current_task()
        assert this is not None
        waiting: set[str] = set()  # the wait_forever calls: "during a tool" means during one
        async for event in agent.run(prompt):
            if isinstance(event, ev.ToolCallStarted) and event.name == "wait_forever":
                waiting.add(event.call_id)
            if isinstance(event, ev.ApprovalRequested):
                allow = next(approvals, None)
                if allow is None:  # the ending's approval
                    this.cancel()
                else:
                    event.decision.set_result(Decision(allow, reason="not now"))
            elif plan.ending == "cancel_while_streaming" and isinstance(event, ev.TextDelta):
                this.cancel()
            elif (
                plan.ending == "cancel_during_tool"
                and isinstance(event, ev.ToolCallDecided)
                and event.call_id in waiting
            ):
                # Not at a call denied earlier in the turn: cancelled there, the next round's
                # request could reach the server after the next turn had begun and take its turn.
                this.cancel()

    task = asyncio.create_task(consume())
    try:
        await task
    except asyncio.CancelledError:
        pass


def _user_and_assistant_text(body: dict[str, Any], api: str) -> tuple[str, str]:
    users: list[str] = []
    assistants: list[str] = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
        else:
            text = content or ""
        if message["role"] == "user":
            users.append(text)
        elif message["role"] == "assistant":
            assistants.append(text)
    return "\n".join(users), "\n".join(assistants)


async def play(api: str, plans: list[PlannedTurn], workspace: Path, tight: bool) -> None:
    """Play the turns, then one more that must succeed; check every request the server got.

    ``tight``: a window so small that older turns and tool outputs are pruned from requests, so
    prompts of earlier turns may be missing (never repeated) and pairs must stay whole.
    """
    window = {"context_window": 5000, "max_tokens": 300} if tight else {}
    with FakeLLM() as fake:
        agent = fake_agent(workspace, fake, api, **window)
        scripter = Scripter()
        kept: dict[str, int] = {}  # prompt -> turns that left it in the conversation
        prompt = ""
        try:
            for number, plan in enumerate([*plans, PlannedTurn(False, (), "text")], 1):
                if not (plan.retry and prompt):
                    prompt = f"prompt-{number} please fix the bug in main.py"
                fake.set_script(scripter.script(plan))
                first = len(fake.requests)
                await drive(agent, prompt, plan)
                for body in fake.requests[first:]:
                    found = problems(body, api)
                    assert not found, (found, json.dumps(body["messages"], indent=1))
                    users, assistants = _user_and_assistant_text(body, api)
                    expected = kept.get(prompt, 0) + 1
                    if tight:
                        assert 1 <= users.count(prompt) <= expected, users
                    else:
                        assert users.count(prompt) == expected, users
                    for marker in {w for w in assistants.split() if w.startswith("answer-")}:
                        assert assistants.count(marker) == 1, assistants
                if plan.middle or plan.ending not in NOTHING_KEPT:
                    kept[prompt] = kept.get(prompt, 0) + 1
        finally:
            await agent.aclose()


@pytest.mark.parametrize("api", APIS)
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plans=st.lists(turn_plans, min_size=1, max_size=5), tight=st.booleans())
def test_every_request_is_valid_whatever_the_turns_before_it(
    api: str, plans: list[PlannedTurn], tight: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(root / "state"))
        monkeypatch.setenv("HOME", str(root / "home"))
        workspace = root / "ws"
        workspace.mkdir()
        (workspace / "notes.txt").write_text("alpha\nbeta\n")
        asyncio.run(play(api, plans, workspace, tight))
