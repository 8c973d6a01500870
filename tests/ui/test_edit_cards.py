"""Pilot tests of edit-tool cards with the built-in tools (issue 11, items 8 and 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import fake_anthropic_config, running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import screen_name, send, wait_idle, wait_until

SAME = "x = 1\n"


async def test_identical_overwrite_shows_no_dialog(make_agent: MakeAgent) -> None:
    write = {"path": "same.py", "content": SAME}
    h = make_agent(
        [
            {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "same.py"}}]},
            {"tool_calls": [{"id": "w", "name": "create_file", "input": write}]},
            {"text": "Already right."},
        ],
        builtin=True,
    )
    path = h.workspace / "same.py"
    path.write_text(SAME)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    app = AgentApp(h.agent)
    screens: set[str] = set()

    def finished() -> bool:
        screens.add(screen_name(pilot))
        return not app.busy

    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "write same.py")
        await pilot.pause()
        await wait_until(pilot, finished, "the turn to finish without a dialog")
        assert "ApprovalScreen" not in screens
        card = [c for c in app.query(ToolCard) if c.state.name == "create_file"][0]
        assert card.state.status == "done"
        assert card.state.message == "same.py already has this content (no change)"
        assert "would change nothing" in card.state.decided
    assert path.stat().st_mtime_ns == 1_000_000_000 and path.read_text() == SAME


async def test_streaming_call_shows_its_card_before_the_call_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    content = "print('a line of the generated program')\n" * 1000  # 40 KB, ~4,000 frames
    write = {"path": "src/big.py", "content": content}
    fake_llm.set_script(
        [{"tool_calls": [{"id": "w", "name": "create_file", "input": write}]}, {"text": "Done."}]
    )
    fake_llm.hold_after = 1500  # the server stops a third of the way through the arguments
    config = fake_anthropic_config(tmp_path, monkeypatch, fake_llm, workspace)
    app = AgentApp(build_agent(config, allow_tools=["create_file"]))

    def cards() -> list[ToolCard]:
        return list(app.query(ToolCard))

    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "write the program")
        await wait_until(pilot, cards, "a card while the call still streams")
        pending = cards()[0]
        # The call is still arriving: the card names the tool, nothing is written yet.
        assert pending.state.name == "create_file"
        assert pending.state.message.startswith("create_file: writing")
        assert pending.state.status == "running" and not pending.state.input
        assert not (workspace / "src").exists()
        fake_llm.release.set()
        await wait_idle(pilot)
        assert cards() == [pending]  # the pending card became the call's card
        assert pending.state.status == "done"
        assert pending.state.input == write
        assert pending.state.message == "Created src/big.py (1,000 lines)"
    assert (workspace / "src" / "big.py").read_text() == content


async def test_pending_card_of_a_cut_call_ends_as_an_error(make_agent: MakeAgent) -> None:
    write = {"path": "a.txt", "content": "partial"}
    h = make_agent(
        [{"tool_calls": [{"id": "w", "name": "create_file", "input": write}], "fault": "cut"}],
        builtin=True,
    )
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "write it")
        await wait_idle(pilot)
        (card,) = app.query(ToolCard)
        assert card.state.status == "error"
        assert card.state.output == "The call's arguments did not arrive complete."
    assert not (h.workspace / "a.txt").exists()
