"""Snapshot of plan mode (issue 17 §2), 100x32.

Update after an intended change with ``--snapshot-update`` for this file and review the SVG.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.modes import Mode
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.plan_offer import PlanChoices
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_until

SIZE = (100, 32)


def test_plan_offer_after_a_refused_edit(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: "mode: plan" in the status bar; the note that the model is told to
    plan; a red-barred "⊘ Not run" card "denied: plan mode, only read-only tools run"; the plan as
    Markdown; and, where the prompt was, the box "The plan is ready. Carry it out?" with options
    1 (ask before edits and commands), 2 (accept edits), 3 (keep planning), the first highlighted,
    and "Esc Keep planning" in the footer."""
    h = make_agent(
        [
            {
                "tool_calls": [
                    {"id": "t1", "name": "create_file", "input": {"path": "a.py", "content": "x"}}
                ]
            },
            {"text": "## Plan\n1. Create `a.py`.\n2. Test it with `pytest -q`."},
        ],
        builtin=True,
    )
    h.agent.deps.approvals.modes.set(Mode.PLAN)
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        pilot.app.refresh_approval_mode()  # type: ignore[attr-defined]
        await send(pilot, "plan a.py")

        def ready() -> bool:  # mounted, composed and focused, with the turn over
            app = pilot.app
            choices = app.query(PlanChoices)
            return bool(choices) and choices.first().has_focus and not app.status.busy  # type: ignore[attr-defined]

        await wait_until(pilot, ready, "the plan offer, focused")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
