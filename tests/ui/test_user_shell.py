"""``!command``: run by the user, shown as a card, sent with the next prompt (issue 17, item 5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.shell_command import ShellCard
from agent_tui.ui.widgets.notes import UserMessage
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.ui.helpers import send, wait_idle


@pytest.mark.parametrize("api", ["anthropic", "openai"])
async def test_bang_command_output_goes_with_the_next_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM, api: str
) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    key_var = "ANTHROPIC_API_KEY" if api == "anthropic" else "OPENAI_API_KEY"
    monkeypatch.setenv(key_var, "sk-test-SECRET-1")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    url = fake_llm.url if api == "anthropic" else fake_llm.openai_url
    user = tmp_path / "user.agentrc"
    user.write_text(f'[model]\nprovider = "{api}"\nname = "m"\nbase_url = "{url}"\n')
    agent = build_agent(load_config(workspace, env={key_var: "sk-test-SECRET-1"}, user_file=user))
    app = AgentApp(agent)
    fake_llm.set_script([{"text": "seen it"}, {"text": "fine"}])
    async with app.run_test(size=(100, 30)) as pilot:
        command = f"echo hi-from-bang; echo key=${key_var}; exit 3"
        await send(pilot, f"!{command}")
        await wait_idle(pilot)
        assert fake_llm.requests == []  # no model, no approval: it just ran
        card = app.query_one(ShellCard)
        assert card.status == "exited 3" and "hi-from-bang" in card.output
        assert "SECRET" not in card.output  # the terminal env policy: no API keys
        assert not app.query(UserMessage)
        await send(pilot, "why did it fail?")
        await wait_idle(pilot)
        body = fake_llm.requests[0]
        sent = json.dumps(body)
        assert "hi-from-bang" in sent and "why did it fail?" in sent and "exited 3" in sent
        assert problems(body, api) == []
        await send(pilot, "and now?")  # sent once: the next prompt does not carry it again
        await wait_idle(pilot)
        once = sent.count("hi-from-bang")
        assert json.dumps(fake_llm.requests[1]).count("hi-from-bang") == once
        await app.shutdown_agent()
