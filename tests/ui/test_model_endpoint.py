"""The status bar names the server requests go to when it is not the provider's own API, and
/model can go back to the model the session started with (issues 10 item 1, 11 item 14).

The agent is built from real config files by build_agent and talks to the fake LLM server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.assistant import AssistantMessage
from tests.fakes.llm_server import FakeLLM
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


@pytest.fixture
def second_llm() -> Iterator[FakeLLM]:
    with FakeLLM() as server:
        yield server


def status_text(app: AgentApp) -> str:
    return str(app.status.render())


async def test_status_bar_shows_the_endpoint_host_and_model_goes_back_to_the_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    user = tmp_path / "user.agentrc"
    user.write_text(
        f'[model]\nprovider = "openai"\nname = "local-model"\nbase_url = "{fake_llm.openai_url}"\n'
        '[models.official]\nprovider = "anthropic"\nname = "claude-x"\n'
    )
    config = load_config(workspace, env={"OPENAI_API_KEY": "sk-test"}, user_file=user)
    agent = build_agent(config)
    app = AgentApp(agent)
    host = fake_llm.url.removeprefix("http://")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until(pilot, lambda: app.status.model_name == "local-model", "status filled")
        assert f"local-model @ {host}" in status_text(app)
        await send(pilot, "/model official")  # the provider's own API: no host shown
        await wait_idle(pilot)
        assert app.status.model_name == "claude-x" and "@" not in status_text(app)
        await send(pilot, "/model default")
        await wait_idle(pilot)
        assert f"local-model @ {host}" in status_text(app)
        await send(pilot, "/model")
        await wait_screen(pilot, "ModelPickerScreen")
        options = app.screen.query_one("OptionList")
        labels = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]  # type: ignore[attr-defined]
        # The model the session started with comes first; only the running one is "current"
        # (the models the local server lists come after them, asked in the background).
        assert labels[:2] == [
            "default: openai local-model  (current)",
            "official: anthropic claude-x",
        ]
        await pilot.press("escape")
        fake_llm.set_script([{"text": "back on the local server"}])
        await send(pilot, "hi")
        await wait_idle(pilot)
        assert app.query(AssistantMessage).last().text == "back on the local server"
        assert fake_llm.requests[-1]["model"] == "local-model"
        await app.shutdown_agent()


async def test_trusting_the_folder_moves_requests_to_its_endpoint_and_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM, second_llm: FakeLLM
) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".agentrc").write_text(f'[model]\nbase_url = "{second_llm.url}"\n')
    user = tmp_path / "user.agentrc"
    user.write_text(f'[model]\nprovider = "anthropic"\nname = "m"\nbase_url = "{fake_llm.url}"\n')
    monkeypatch.setenv("AGENT_TUI_USER_CONFIG", str(user))  # trusting reloads the real files
    config = load_config(workspace)
    assert config.ignored_untrusted == ("model.base_url",)
    app = AgentApp(build_agent(config))
    mine, theirs = fake_llm.url.removeprefix("http://"), second_llm.url.removeprefix("http://")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_screen(pilot, "TrustScreen")
        assert f"m @ {mine}" in status_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: theirs in status_text(app), "the folder's endpoint")
        second_llm.set_script([{"text": "folder server"}])
        await send(pilot, "hi")
        await wait_idle(pilot)
        assert len(second_llm.received) == 1
        await app.apply_trust(False)  # /trust off: back to the user's own server
        assert mine in status_text(app)
        fake_llm.set_script([{"text": "my server"}])
        await send(pilot, "again")
        await wait_idle(pilot)
        assert len(fake_llm.received) == 1 and len(second_llm.received) == 1
        await app.shutdown_agent()
