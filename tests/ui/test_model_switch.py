"""``/model`` takes any model name, lists what the provider serves, and the context meter follows
the switch (issue 23 §10). A real agent from config files talks to the fake LLM server."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import Note
from tests.fakes.llm_server import FakeLLM
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeLLM) -> AgentApp:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    user = tmp_path / "user.agentrc"
    user.write_text(
        f'[model]\nprovider = "openai"\nname = "local-model"\nbase_url = "{fake.openai_url}"\n'
        "context_window = 50000\n"
    )
    config = load_config(workspace, env={"OPENAI_API_KEY": "sk-test"}, user_file=user)
    return AgentApp(build_agent(config))


def meter(app: AgentApp) -> str:
    return next(p for p in str(app.status.render()).split(" │ ") if p.startswith("context"))


async def test_any_model_name_switches_and_the_meter_follows_its_window(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "one", "usage": {"input_tokens": 4_000}}, {"text": "two"}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(160, 30)) as pilot:
        await send(pilot, "hi")
        await wait_idle(pilot)
        # 50,000 less the reply's 8,192: what a request may hold.
        assert meter(app) == "context 10% of 42k"
        await send(pilot, "/model gpt-4o")  # not an alias: a model of the running provider
        await wait_idle(pilot)
        assert app.front.model.name == "gpt-4o" and app.status.model_name == "gpt-4o"
        assert "Model: openai gpt-4o (context window 128,000 tokens)" in app.query(Note).last().text
        assert meter(app) == "context 3% of 120k"  # the published gpt-4o window, not 50,000
        await send(pilot, "again")
        await wait_idle(pilot)
        assert fake_llm.requests[-1]["model"] == "gpt-4o"
        await app.shutdown_agent()


async def test_the_picker_offers_the_models_the_server_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.served_models = ["local-model", "qwen2.5-coder:7b"]
    fake_llm.set_script([{"text": "from the other model"}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "/model")
        await wait_screen(pilot, "ModelPickerScreen")
        options = app.screen.query_one("OptionList")

        def labels() -> list[str]:
            count = options.option_count  # type: ignore[attr-defined]
            return [str(options.get_option_at_index(i).prompt) for i in range(count)]  # type: ignore[attr-defined]

        await wait_until(pilot, lambda: "qwen2.5-coder:7b" in labels(), "the served models")
        assert labels() == [
            "default: openai local-model  (current)",
            "Served by openai:",
            "local-model  (current)",
            "qwen2.5-coder:7b",
        ]
        options.highlighted = labels().index("qwen2.5-coder:7b")  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_idle(pilot)
        assert app.front.model.name == "qwen2.5-coder:7b"
        await send(pilot, "hi")
        await wait_idle(pilot)
        assert fake_llm.requests[-1]["model"] == "qwen2.5-coder:7b"
        await app.shutdown_agent()
