"""Snapshots of prompt editing (issue 27 item 5) at 80x24: Ctrl+R's search line, vi's mode.

Update after an intended change with ``--snapshot-update`` for this file and review the SVG.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from agent_tui.ui.prompt_history import append_history
from agent_tui.ui.widgets.composer import Composer
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_until

SIZE = (80, 24)


def test_history_search_line(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: above the prompt (which still holds "half typed"), one line
    "(reverse-i-search)`git': git log --oneline" in the accent colour; nothing else changed."""
    h = make_agent([])
    for prompt in ("git status", "fix the parser", "git log --oneline", "run the tests"):
        append_history(h.workspace, prompt)
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await pilot.press(*"half typed", "ctrl+r", *"git")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_vim_normal_mode_indicator(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: "-- NORMAL --" in the prompt's top border (left), the prompt
    holding "fix the parser" with the cursor on the "p" of "parser"."""
    h = make_agent([])
    (h.workspace.parent / "home" / ".agentrc").write_text("[ui]\nvim = true\n")
    h = make_agent([])
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await pilot.press(*"fix the parser", "escape", "b")
        composer = pilot.app.query_one(Composer)
        await wait_until(pilot, lambda: composer.border_title == "-- NORMAL --", "normal mode")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
