"""Wide Markdown tables wrap their cells at 80 columns instead of cutting them (issue 11 §9).

Before the fix both renderers ended a cell that did not fit with "…": ``timeou…`` for a key.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import MarkdownNote
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle

SIZE = (80, 34)
WIDE_TABLE = """\
| key | type | default | env | description |
| --- | --- | --- | --- | --- |
| `timeout_seconds` | number | 30 | `AGENT_TUI_TERMINAL_TIMEOUT` | How long a command may run before it is killed |
| `eligible_for_auto_approval` | boolean | true | (none) | When false the tool always asks |
"""


def screen_text(app: AgentApp) -> str:
    """The screen's characters, row by row, from the SVG screenshot."""
    svg = app.export_screenshot()
    rows: dict[float, list[tuple[float, str]]] = {}
    for match in re.finditer(r'<text [^>]*x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, text = float(match[1]), float(match[2]), unescape(match[3])
        rows.setdefault(y, []).append((x, text.replace("\xa0", " ")))
    return "\n".join("".join(t for _, t in sorted(rows[y])) for y in sorted(rows))


def _steady(pilot: Pilot[Any]) -> None:
    pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]


async def test_wide_table_in_a_finished_answer_wraps_cells_at_80_columns(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "The keys:\n\n" + WIDE_TABLE}])
    async with running_app(h.agent, workspace_label="~/project", size=SIZE) as (app, pilot):
        await send(pilot, "which keys?")
        await wait_idle(pilot)
        text = screen_text(app)
        assert "timeout_seconds" in text
        assert "eligible_for_auto" in text and "approval" in text
        assert "…" not in text


async def test_wide_table_in_a_markdown_widget_wraps_cells_at_80_columns(
    make_agent: MakeAgent,
) -> None:
    agent = make_agent([]).agent
    async with running_app(agent, workspace_label="~/project", size=SIZE) as (app, pilot):
        await app.transcript.add(MarkdownNote(WIDE_TABLE))
        await pilot.pause()
        text = screen_text(app)
        assert "timeout_seconds" in text
        assert "eligible_for_auto" in text and "proval" in text
        assert "…" not in text


def test_snapshot_answer_with_a_wide_table_at_80_columns(
    snap_compare: Any, make_agent: MakeAgent
) -> None:
    """Reviewer should see, at 80 columns: the answer's table (Rich, finished answer) with every
    cell whole — `timeout_seconds` and `eligible_for_auto_approval` complete (a word longer than
    its column continues on the next line), no "…" anywhere — and below it the same table as a
    note (Textual's Markdown widget, boxed), also wrapped, not cut.
    """
    h = make_agent([{"text": WIDE_TABLE}])
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await send(pilot, "keys")
        await wait_idle(pilot)
        await app.transcript.add(MarkdownNote(WIDE_TABLE))
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 44), run_before=run_before)
