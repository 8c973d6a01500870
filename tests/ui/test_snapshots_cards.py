"""Snapshots of tool cards that did not succeed (issue 11 §6), 100x32.

Update after an intended change with ``--snapshot-update`` for this file and review the SVGs.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from tests.ui.app_helpers import send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_idle, wait_screen

SIZE = (100, 32)


def test_failed_and_denied_command_cards(snap_compare: Any, asking_agent: MakeAgent) -> None:
    """Reviewer should see: a red-barred card "✗ $ Ran `ls does-not-exist` — exit code 2" (no green
    tick, no green bar) allowed by you once, then a red-barred card "⊘ $ Not run: rm -rf build"
    denied by you (nothing says "Running"), then the answer "Both failed.".
    """
    # `ls` would run unasked (a read-only command); this card is about one the user allowed.
    h = asking_agent(
        [
            {
                "tool_calls": [
                    {
                        "id": "t1",
                        "name": "run_in_terminal",
                        "input": {"command": "ls does-not-exist"},
                    }
                ]
            },
            {
                "tool_calls": [
                    {"id": "t2", "name": "run_in_terminal", "input": {"command": "rm -rf build"}}
                ]
            },
            {"text": "Both failed."},
        ],
        builtin=True,
    )
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await send_to_approval(pilot, "list and clean", "y")
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("escape", "escape")
        await wait_idle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
