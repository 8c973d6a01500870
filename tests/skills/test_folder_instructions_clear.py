"""After /clear (``Agent.reset``) a subfolder AGENTS.md is given again: once per conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.agent.loop import Agent
from tests.agent.conftest import FAKE_KEY_ENV, fake_agent
from tests.fakes.llm_server import FakeLLM


async def _turn(agent: Agent, fake: FakeLLM) -> str:
    read = {"id": "c1", "name": "read_file", "input": {"path": "pkg/a.py"}}
    fake.set_script([{"tool_calls": [read]}, {"text": "ok"}])
    async for _ in agent.run("read pkg/a.py"):
        pass
    return json.dumps(fake.requests[-1]["messages"][-1])


async def test_a_new_conversation_gets_the_subfolder_agents_md_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FAKE_KEY_ENV, "k")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "AGENTS.md").write_text("Pkg rule.\n")
    (tmp_path / "pkg" / "a.py").write_text("a = 1\n")
    with FakeLLM() as fake:
        agent = fake_agent(tmp_path, fake, "anthropic")
        try:
            first = await _turn(agent, fake)
            again = await _turn(agent, fake)
            agent.reset()
            after_clear = await _turn(agent, fake)
        finally:
            await agent.aclose()

    assert "Pkg rule." in first
    assert "Pkg rule." not in again
    assert "Pkg rule." in after_clear
