"""``/approvals``: the grants that apply here, and revoking one.

Lists this session's grants, this folder's and the "always" ones (``GrantStore.grants()``) with
scope, tool, pattern and when granted. ``d`` or Delete revokes the highlighted grant at once (a
session grant from memory, a stored one from the state file); Esc closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from agent_tui.front.types import ApprovalGrant
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from agent_tui.front.grants import Grants

COLUMNS = ("scope", "tool", "pattern", "granted (UTC)")


def grant_row(grant: ApprovalGrant) -> tuple[str, str, str, str]:
    # A pattern holds a command the model wrote: control characters shown.
    pattern = one_line((grant.pattern or "(any call)").replace("\n", " "))
    return grant.scope.value, one_line(grant.tool), pattern, grant.granted_at[:19].replace("T", " ")


class ApprovalsScreen(ModalScreen[None]):
    """The grants table.

    Args:
        grants: the session's grants (``Front.grants``); revoking one means the next identical
            call is asked again.
    """

    CSS_PATH = "approvals.tcss"
    BINDINGS = [
        Binding("d,delete", "revoke", "Revoke"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, grants: Grants) -> None:
        super().__init__()
        self.grants = grants
        self.revoked: list[ApprovalGrant] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Remembered approvals", id="title")
            yield DataTable[str](id="grants", cursor_type="row", zebra_stripes=True)
            yield Label("", id="empty")
            yield Label("d / Delete revokes the highlighted approval · Esc closes", id="hint")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.reload()

    def reload(self) -> None:
        """Fill the table from the grants (other instances may have changed the file)."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        grants = self.grants.list()
        for grant in grants:
            table.add_row(*grant_row(grant), key=grant.id)
        if grants:
            table.move_cursor(row=min(row, len(grants) - 1))
        self.query_one("#empty", Label).update("" if grants else "No remembered approvals.")
        table.display = bool(grants)

    def action_revoke(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return
        grant_id = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        revoked = self.grants.revoke(grant_id) if grant_id is not None else None
        if revoked is None:
            self.notify("That approval was already gone.", severity="warning")
        else:
            self.revoked.append(revoked)
            self.notify(f"Revoked {revoked.describe()}.")
        self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
