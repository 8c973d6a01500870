"""A long turn keeps in memory only the tool outputs a request still carries (issue 13 item 9)."""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.loop import Agent
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.conversation import ELIDED, ToolResultBlock, ToolUseBlock
from agent_tui.identity_cache import IdentityCache
from agent_tui.providers.scripted import ScriptedProvider


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def reading_agent(tmp_path: Path, rounds: int, window: int) -> Agent:
    ws = tmp_path / "ws"
    ws.mkdir()
    # ~12,000 characters: about 3,000 tokens an output, so a 10,000-token window holds one
    # beside the system prompt and the tool schemas (which grew with read_skill and run_agent).
    (ws / "big.py").write_text(
        "".join(f"value_{i} = {i}  # a line of the file\n" for i in range(400))
    )
    turns: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"c{i}", "name": "read_file", "input": {"path": "big.py"}}]}
        for i in range(rounds)
    ]
    turns.append({"text": "done"})
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    layer = {
        "model": {
            "provider": "scripted",
            "script": str(script),
            "context_window": window,
            "max_tokens": 1000,
        },
        # Pruning alone: compaction (which runs first near the window) is tested on its own.
        "agent": {"max_rounds": rounds + 1, "compact_at": 0},
    }
    config = load_config(ws, cli=layer, env={}, user_file=ws / "no-user-rc")
    return build_agent(config)


async def run_turn(agent: Agent, text: str) -> None:
    async for _event in agent.run(text):
        pass


def outputs(messages: Any) -> dict[str, str]:
    return {
        b.tool_use_id: b.content
        for m in messages
        for b in m.content
        if isinstance(b, ToolResultBlock)
    }


def test_outputs_elided_from_requests_are_not_kept_in_the_conversation(tmp_path: Path) -> None:
    agent = reading_agent(tmp_path, rounds=12, window=10_000)
    asyncio.run(run_turn(agent, "read big.py again and again"))
    provider = agent.deps.provider
    assert isinstance(provider, ScriptedProvider)
    last_request = outputs(provider.requests[-1].messages)
    kept = outputs(agent.conversation.messages)
    assert len(kept) == 12
    # Every output the last request left out (elided) is a placeholder in memory too ...
    elided = [cid for cid, text in last_request.items() if text == ELIDED]
    assert len(elided) >= 10
    assert all(kept[cid] == ELIDED for cid in elided)
    # ... and what it carried is whole.
    carried = [cid for cid, text in last_request.items() if text != ELIDED]
    assert carried and all("value_399 = 399" in kept[cid] for cid in carried)
    # The calls stay, so every result still answers its call.
    calls = [
        b.id for m in agent.conversation.messages for b in m.content if isinstance(b, ToolUseBlock)
    ]
    assert sorted(calls) == sorted(kept)


def test_dropped_turns_let_their_outputs_go(tmp_path: Path) -> None:
    agent = reading_agent(tmp_path, rounds=1, window=9_000)
    provider = agent.deps.provider
    assert isinstance(provider, ScriptedProvider)
    asyncio.run(run_turn(agent, "read big.py"))
    first_output = outputs(agent.conversation.messages)["c0"]
    assert "value_399 = 399" in first_output
    # Three more turns of plain text push the first (with its output) out of the window.
    for n in range(3):
        provider.turns.append(provider.turns[-1])
        asyncio.run(run_turn(agent, f"question {n} " + "padding " * 600))
    requests = provider.requests
    read_at = next(i for i, r in enumerate(requests) if "c0" in outputs(r.messages))
    dropped_once = [r for r in requests[read_at:] if "c0" not in outputs(r.messages)]
    assert dropped_once, "the first turn was never dropped: the window is too large"
    assert outputs(agent.conversation.messages)["c0"] == ELIDED
    # Slimmed to its placeholder, the old turn may fit again; its output never comes back.
    after = requests[requests.index(dropped_once[0]) :]
    assert all(outputs(r.messages).get("c0", ELIDED) == ELIDED for r in after)


def test_outputs_that_fit_are_kept_whole(tmp_path: Path) -> None:
    agent = reading_agent(tmp_path, rounds=5, window=200_000)
    asyncio.run(run_turn(agent, "read big.py a few times"))
    kept = outputs(agent.conversation.messages)
    assert len(kept) == 5 and all("value_399 = 399" in text for text in kept.values())


def test_identity_cache_forgets_an_object_when_it_dies() -> None:
    class Box:
        def __init__(self, n: int) -> None:
            self.n = n

    cache: IdentityCache[Box, int] = IdentityCache()
    calls: list[int] = []

    def compute(box: Box) -> int:
        calls.append(box.n)
        return box.n * 10

    first = Box(1)
    assert cache.get(first, compute) == 10 and cache.get(first, compute) == 10
    assert calls == [1]
    del first
    gc.collect()
    assert len(cache) == 0
    # A new object (which may reuse the old id) is computed afresh.
    assert cache.get(Box(2), compute) == 20
    assert calls == [1, 2]
