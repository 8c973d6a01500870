"""The todo panel above the prompt: live as the model sends its list, one line when collapsed
(F2 or a click), control characters shown, restored with a resumed session, gone on /clear."""

from __future__ import annotations

from typing import Any

from agent_tui.agent.resume import attach_app
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.todo_panel import TodoPanel
from tests.ui.app_helpers import running_app, send_clear
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle
from tests.ui.screen_text import region_text

ITEMS = [
    {"content": "Read the parser", "status": "completed"},
    {"content": "Fix the off-by-one\x1b[2J in the lexer", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]
HEADING = "☐ 1 of 3 done · now: Fix the off-by-one␛[2J in the lexer"


def _todo(items: list[dict[str, str]], call_id: str = "t1") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "input": {"items": items}}]}


def _panel_text(app: AgentApp) -> str:
    return region_text(app, app.query_one(TodoPanel).content_region)


async def test_the_list_shows_live_and_collapses_to_one_line(make_agent: MakeAgent) -> None:
    h = make_agent([_todo(ITEMS), {"text": "Working on it."}], builtin=True)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        panel = app.query_one(TodoPanel)
        assert not panel.display  # nothing to show before the model sends a list
        await send(pilot, "fix the lexer")
        await wait_idle(pilot)
        await pilot.pause()
        assert panel.display
        shown = _panel_text(app).splitlines()
        assert shown[0].startswith(HEADING)
        assert [line.rstrip() for line in shown[1:]] == [
            "  ☑ Read the parser",
            "  ▶ Fix the off-by-one␛[2J in the lexer",
            "  ☐ Run the tests",
        ]
        await pilot.press("f2")
        await pilot.pause()
        assert [line.rstrip() for line in _panel_text(app).splitlines()] == [
            HEADING + " (F2 shows the list)"
        ]
        await pilot.click(TodoPanel)
        await pilot.pause()
        assert len(_panel_text(app).splitlines()) == 4


async def test_a_long_item_stays_on_one_line_at_80_columns(make_agent: MakeAgent) -> None:
    long = [{"content": "word " * 40, "status": "in_progress"}]
    h = make_agent([_todo(long), {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await send(pilot, "go")
        await wait_idle(pilot)
        await pilot.pause()
        lines = _panel_text(app).splitlines()
        assert len(lines) == 2 and lines[1].rstrip().endswith("…")


async def test_a_resumed_session_shows_its_list_and_clear_hides_it(make_agent: MakeAgent) -> None:
    first = make_agent([_todo(ITEMS), {"text": "Paused."}], builtin=True)
    start = attach_app(first.agent, cont=False, resume_id=None)
    async with running_app(first.agent, session=start) as (_app, pilot):
        await send(pilot, "fix the lexer")
        await wait_idle(pilot)

    second = make_agent([{"text": "unused"}], builtin=True)
    start = attach_app(second.agent, cont=True, resume_id=None)
    async with running_app(second.agent, session=start, size=(80, 24)) as (app, pilot):
        await pilot.pause()
        panel = app.query_one(TodoPanel)
        assert panel.display and _panel_text(app).startswith(HEADING)
        await send_clear(pilot, "y")
        await pilot.pause()
        assert not panel.display
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        await pilot.pause()
        assert panel.display and _panel_text(app).startswith(HEADING)


def test_snapshot_todo_panel_at_80_columns(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see, at 80x24: the "Updated the todo list (1 of 3 done; now: …)" card
    in the transcript, the answer "Working on it.", and above the prompt the panel: the bold
    heading "☐ 1 of 3 done · now: Fix the off-by-one␛[2J in the lexer" with a dim "(F2 hides)",
    then "☑ Read the parser" (dim), "▶ Fix the off-by-one␛[2J in the lexer" (bold) and
    "☐ Run the tests", each on one line; the escape shown as ␛, never acted on."""
    h = make_agent([_todo(ITEMS), {"text": "Working on it."}], builtin=True)
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Any) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False
        await send(pilot, "fix the lexer")
        await wait_idle(pilot)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
