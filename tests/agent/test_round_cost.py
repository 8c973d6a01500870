"""A round of a long turn costs the same at round 60 as at round 10: the real loop, counted.

Each round builds its request from the whole conversation: automatic compaction's estimate, the
budget's (twice), which outputs to let go, which images fit, the wire form. When each of those
passes counted every message again, a 300-round ``-p`` turn went from ~10 to ~24 ms a round
(``bench/bench_rounds.py``). What a message yields is now computed once and kept on it
(``Message.tokens`` and its neighbours, each provider's wire form), so the work of a round is
what is new: the model's answer, the tool's result, the copies the budget makes. These tests run
the real agent against the fake server over both APIs and count, round by round, how many blocks
are estimated and how many messages converted to the wire; no clock is read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui import conversation
from agent_tui import events as ev
from agent_tui.agent.loop import Agent
from agent_tui.providers import anthropic, openai
from agent_tui.providers.base import ProviderRequest
from tests.agent.conftest import fake_agent, fake_agent_workspace
from tests.fakes.llm_server import FakeLLM

ROUNDS = 60
# Per round: the new answer and result, the request message rebuilt from the stored one, the
# result the budget elides and its copy in the conversation. A pass over the conversation would
# add one per message: over 100 by round 60.
MOST_PER_ROUND = 12


class Counter:
    """Counts the calls of a module function it stands in for (the function still runs)."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.function = function
        self.calls = 0

    def __call__(self, *args: Any) -> Any:
        self.calls += 1
        return self.function(*args)


async def per_round(agent: Agent, counters: list[Counter]) -> list[list[int]]:
    """Run one turn; for each counter, its calls from one request to the next, round by round."""
    totals: list[list[int]] = []
    async for event in agent.run("read big.py many times"):
        if isinstance(event, ev.RoundLimitHit):
            event.proceed.set_result(True)
        elif isinstance(event, ev.RequestSent):
            totals.append([c.calls for c in counters])
    totals.append([c.calls for c in counters])  # the last wire form is built after it is sent
    return [
        [later[i] - earlier[i] for earlier, later in zip(totals, totals[1:], strict=False)]
        for i in range(len(counters))
    ]


@pytest.mark.parametrize("api", ["anthropic", "openai"])
async def test_each_round_estimates_and_converts_only_what_is_new(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: str
) -> None:
    ws = fake_agent_workspace(tmp_path, monkeypatch)
    # ~8 KB an output: the window below holds a few, so the budget elides and lets go each round.
    (ws / "big.py").write_text("".join(f"def function_{i}(x):  # line {i}\n" for i in range(300)))
    estimate = Counter(conversation.count_block_tokens)
    monkeypatch.setattr(conversation, "count_block_tokens", estimate)
    module, name = (openai, "wire_message") if api == "openai" else (anthropic, "_wire_blocks")
    wire = Counter(getattr(module, name))
    monkeypatch.setattr(module, name, wire)
    call = {"name": "read_file", "input": {"path": "big.py"}}
    turns: list[dict[str, Any]] = [{"tool_calls": [{"id": f"c{i}", **call}]} for i in range(ROUNDS)]
    turns.append({"text": "Read it many times."})
    with FakeLLM(turns) as fake:
        fake.keep_bodies = False
        agent = fake_agent(ws, fake, api, context_window=24_000)
        estimates, conversions = await per_round(agent, [estimate, wire])
        await agent.aclose()
        assert fake.turns_served == ROUNDS + 1  # every round a model request, none a summary
    assert len(estimates) == ROUNDS
    print(f"per round: estimates {estimates}, conversions {conversions}")
    assert max(estimates[5:]) <= MOST_PER_ROUND, estimates
    assert max(conversions[5:]) <= MOST_PER_ROUND, conversions


def test_the_cache_breakpoint_stays_on_the_last_message_of_each_request() -> None:
    """Anthropic's ``cache_control`` goes on the last block; the blocks are kept per message and
    shared by every request after, so the mark must land on a copy, never on the kept block."""
    first = conversation.Message("user", [conversation.TextBlock("read a.py")])
    call = conversation.ToolUseBlock("c1", "read_file", {"path": "a.py"})
    answer = conversation.Message("assistant", [call])
    result = conversation.Message("user", [conversation.ToolResultBlock("c1", "one line")])

    def marked(messages: list[conversation.Message]) -> list[int]:
        request = ProviderRequest(model="m", system="", messages=messages)
        wire = anthropic.messages_body(request)["messages"]
        return [i for i, m in enumerate(wire) if any("cache_control" in b for b in m["content"])]

    assert marked([first]) == [0]
    assert marked([first, answer]) == [1]
    assert marked([first, answer, result]) == [2]
    assert marked([first, answer]) == [1]  # the third request changed nothing the second kept
