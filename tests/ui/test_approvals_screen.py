"""``/approvals``: the grants table, and revoking one so the next identical call is asked again."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Label

from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope
from agent_tui.ui.screens.approvals import ApprovalsScreen
from agent_tui.ui.widgets.notes import MarkdownNote
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import screen_name, send, wait_idle, wait_screen, wait_until
from tests.ui.test_trust import script


def table_rows(screen: ApprovalsScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(n)] for n in range(table.row_count)]


async def test_revoke_session_grant_then_the_call_is_asked_again(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    h = make_agent(script(2))
    store = h.agent.deps.approvals.grants
    store.add(Scope.WORKSPACE, "run_in_terminal", "git status")
    async with running_app(h.agent, size=(110, 32)) as (app, pilot):
        await send_to_approval(pilot, "write one")
        await pilot.press("s")  # a session grant for write_note
        await wait_idle(pilot)

        await send(pilot, "/approvals")
        await wait_screen(pilot, "ApprovalsScreen")
        screen = app.screen
        assert isinstance(screen, ApprovalsScreen)
        rows = table_rows(screen)
        assert [row[:3] for row in rows] == [
            ["session", "write_note", "(any call)"],
            ["workspace", "run_in_terminal", "git status"],
        ]
        assert rows[0][3].startswith("20") and "T" not in rows[0][3]
        assert not app.query(MarkdownNote)  # the table is on the screen, not in the transcript
        await pilot.press("d")  # the first row is highlighted
        await wait_until(pilot, lambda: len(table_rows(screen)) == 1, "the row to go")
        assert table_rows(screen)[0][1] == "run_in_terminal"
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen_name(pilot) != "ApprovalsScreen", "closing")

        await send_to_approval(pilot, "write two")  # asked again: the grant is gone
        await pilot.press("y")
        await wait_idle(pilot)
    # The stored workspace grant was not touched.
    assert [g.tool for g in GrantStore(h.workspace, tmp_path / "state").grants()] == [
        "run_in_terminal"
    ]


async def test_revoke_stored_grant_with_delete_removes_it_from_the_file(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    h = make_agent([])
    store = h.agent.deps.approvals.grants
    store.add(Scope.ALWAYS, "fetch_webpage", "https://docs.python.org")
    store.add(Scope.WORKSPACE, "write_note", None)
    async with running_app(h.agent, size=(110, 32)) as (app, pilot):
        await send(pilot, "/approvals")
        await wait_screen(pilot, "ApprovalsScreen")
        screen = app.screen
        assert isinstance(screen, ApprovalsScreen)
        assert [row[0] for row in table_rows(screen)] == ["workspace", "always"]
        await pilot.press("down", "delete")
        await wait_until(pilot, lambda: len(table_rows(screen)) == 1, "the row to go")
        assert [g.scope.value for g in screen.revoked] == ["always"]
        await pilot.press("d")
        await wait_until(pilot, lambda: not screen.query_one(DataTable).display, "empty table")
        assert str(screen.query_one("#empty", Label).content) == "No remembered approvals."
        await pilot.press("d")  # nothing left: no error
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen_name(pilot) != "ApprovalsScreen", "closing")
    # A fresh store (another process) sees neither grant.
    assert GrantStore(h.workspace, tmp_path / "state").grants() == []
