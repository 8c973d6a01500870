"""SVG snapshots of the /rewind picker and the /undo question (issue 12 §4).

Update after an intended change with ``pytest tests/ui/test_snapshots_rewind.py --snapshot-update``
and review the SVGs.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.rewind import PromptChoice, RewindScreen
from agent_tui.ui.screens.undo_conflicts import UndoConflictsScreen
from tests.ui.conftest import MakeAgent

SIZE = (100, 32)


def _app(make_agent: MakeAgent) -> AgentApp:
    return AgentApp(make_agent([]).agent, workspace_label="~/project")


def _steady(pilot: Pilot[Any]) -> None:
    pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]


def test_rewind_picker(snap_compare: Any, make_agent: MakeAgent) -> None:
    """The /rewind picker. Reviewer should see: "Rewind to before which prompt?", three prompts
    newest first with the newest highlighted: "run the tests" (no count), the hostile one shown as
    typed — "[b]bold[/b] ␛[2K hidden?" with the brackets and a visible ␛ — with "(2 files changed
    since)" dimmed, and "fix the parser" with "(3 files changed since)"; then the key hint line and
    the muted explanation of code vs conversation.
    """
    prompts = [
        PromptChoice(0, "fix the parser", 3),
        PromptChoice(2, "[b]bold[/b] \x1b[2K hidden?", 2),
        PromptChoice(4, "run the tests", 0),
    ]

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.app.push_screen(RewindScreen(prompts))
        await pilot.pause()

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)


def test_undo_conflicts_question(snap_compare: Any, make_agent: MakeAgent) -> None:
    """/undo found files edited by hand. Reviewer should see: "2 files changed outside the agent
    since its last write:", the two paths (the second with its [markup] brackets and a visible ␛),
    "Undoing would overwrite those changes.", and the buttons o Overwrite, k Keep them, undo the
    rest, Esc Cancel.
    """

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.app.push_screen(UndoConflictsScreen(["src/app.py", "docs/[red]x\x1b[2K.md"]))
        await pilot.pause()

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)
