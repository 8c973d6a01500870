"""The status bar while waiting for the model and after (issue 14, items 4 and 5), against the
fake server speaking as llama.cpp (its /props states the context window) and the text tool-call
card (item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.status_bar import StatusBar
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.ui.helpers import send, wait_idle, wait_until


def make_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeLLM) -> AgentApp:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "hello.py").write_text("print('hi')\n")
    layer = {"model": {"provider": "openai", "name": "qwen", "base_url": fake.openai_url}}
    env = {"OPENAI_API_KEY": "k"}
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    config = load_config(workspace, cli=layer, env=env, user_file=tmp_path / "no-rc")
    return AgentApp(build_agent(config))


def bar_text(app: AgentApp) -> str:
    return str(app.query_one(StatusBar).render())


async def test_status_bar_shows_the_wait_then_the_context_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 8192
    fake_llm.set_script([{"text": "Hello.", "usage": {"input_tokens": 3523}}])
    fake_llm.hold_after = 0  # nothing comes until released: a cold model
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(160, 32)) as pilot:
        await send(pilot, "hi")
        await wait_until(
            pilot, lambda: "waiting for the model (prompt ≈" in bar_text(app), "the wait shown"
        )
        fake_llm.release.set()
        await wait_idle(pilot)
        text = bar_text(app)
        assert "waiting" not in text
        assert "context 86% of 4k" in text


async def test_a_call_written_as_text_has_a_card_saying_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    call = '```json\n{"name": "read_file", "arguments": {"path": "hello.py"}}\n```'
    fake_llm.set_script([{"text": call}, {"text": "It prints hi."}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(120, 32)) as pilot:
        await send(pilot, "what does hello.py print?")
        await wait_idle(pilot)
        (card,) = app.query(ToolCard)
        assert card.state.name == "read_file" and card.state.status == "done"
        assert card.state.note == "parsed from text"
        assert "· parsed from text" in str(card._header.render())
        # The JSON never showed as an answer; the real answer did.
        shown = " ".join(w.text for w in app.query(AssistantMessage))
        assert "It prints hi." in shown and "```json" not in shown


async def test_at_80_columns_the_context_stays_and_the_folder_gives_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    """At 80 columns everything did not fit and the context figure was cut off the right edge;
    the folder, then the approval mode, then the token counts give way to it."""
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 8192
    fake_llm.set_script([{"text": "Hello.", "usage": {"input_tokens": 3523}}])
    app = make_app(tmp_path, monkeypatch, fake_llm)
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "hi")
        await wait_idle(pilot)
        bar = app.query_one(StatusBar)
        text = bar_text(app)
        assert "context 86% of 4k" in text and "qwen" in text
        assert len(text) <= bar.content_region.width
    (tmp_path / "wide").mkdir()
    wide = make_app(tmp_path / "wide", monkeypatch, fake_llm)
    async with wide.run_test(size=(200, 24)) as pilot:  # room for all: nothing is left out
        await pilot.pause()
        assert "mode: ask" in bar_text(wide) and "/ws" in bar_text(wide)
