"""Pilot: a sub-agent's run is drawn as a nested card that asks like the agent and then folds away."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.subagent_card import SubagentCard
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import fake_anthropic_config, running_app
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until

WRITER = "---\nname: writer\ndescription: writes files\ntools: Write\n---\nYou write files.\n"


async def test_nested_card_appears_asks_for_approval_and_collapses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".agent" / "agents").mkdir(parents=True)
    (workspace / ".agent" / "agents" / "writer.md").write_text(WRITER)
    write = {"path": "made.txt", "content": "from the sub-agent\n"}
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {"id": "p1", "name": "run_agent", "input": {"agent": "writer", "task": "w"}}
                ]
            },
            {"tool_calls": [{"id": "c1", "name": "create_file", "input": write}]},
            {"text": "CHILD wrote made.txt"},
            {"text": "All done."},
        ]
    )
    config = fake_anthropic_config(tmp_path, monkeypatch, fake_llm, workspace)
    async with running_app(build_agent(config), size=(100, 40)) as (app, pilot):
        await send(pilot, "delegate")
        # The nested create_file asks through the same dialog as a top-level call.
        await wait_screen(pilot, "ApprovalScreen")
        nested = app.query_one(SubagentCard)
        assert not nested.collapsed
        assert [c.state.name for c in nested.query(ToolCard)] == ["create_file"]
        await pilot.press("y")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: nested.collapsed, "the nested card to fold away")
        assert "done" in str(nested.title)
        outer = [c for c in app.query(ToolCard) if c.state.name == "run_agent"][0]
        assert outer.parent is not nested.query_one(SubagentCard.Contents)
        assert outer.state.status == "done"
        # Clicking the title opens it again: the run stays readable.
        nested.collapsed = False
        await pilot.pause()
        assert not nested.collapsed
    assert (workspace / "made.txt").read_text() == "from the sub-agent\n"


async def test_escape_cancels_the_sub_run_and_the_conversation_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".agent" / "agents").mkdir(parents=True)
    (workspace / ".agent" / "agents" / "runner.md").write_text(
        "---\nname: runner\ndescription: runs\ntools: Bash\n---\nYou run commands.\n"
    )
    slow = {"command": "sleep 30 && touch late.txt"}
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {"id": "p1", "name": "run_agent", "input": {"agent": "runner", "task": "go"}}
                ]
            },
            {"tool_calls": [{"id": "c1", "name": "run_in_terminal", "input": slow}]},
            {"text": "after"},
        ]
    )
    config = fake_anthropic_config(tmp_path, monkeypatch, fake_llm, workspace)
    app = AgentApp(build_agent(config, yolo=True))

    def nested_running() -> bool:
        cards = app.query(SubagentCard)
        return bool(cards) and any(c.state.status == "running" for c in cards[0].query(ToolCard))

    async with app.run_test(size=(100, 40)) as pilot:
        await send(pilot, "delegate")
        await wait_until(pilot, nested_running, "the sub-agent's command to run")
        await pilot.press("escape")
        await wait_idle(pilot)
        nested = app.query_one(SubagentCard)
        assert nested.collapsed and "failed" in str(nested.title)
        outer = [c for c in app.query(ToolCard) if c.state.name == "run_agent"][0]
        assert outer.state.status != "running"
        await send(pilot, "again")
        await wait_idle(pilot)
    last = json.dumps(fake_llm.requests[-1]["messages"])
    assert "cancelled" in last and '"p1"' in last
    assert not (workspace / "late.txt").exists()
