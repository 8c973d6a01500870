"""Pilot tests of edit-tool cards with the built-in tools (issue 11, items 8 and 12)."""

from __future__ import annotations

import os

from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import screen_name, send, wait_until

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
