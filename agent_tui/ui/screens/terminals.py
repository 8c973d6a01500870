"""``/terminals``: the session's background terminals, and killing one.

Lists every background terminal of the session (``Front.terminals``: commands run with ``is_background``,
and those a command left running): id, state (running / exited N / killed), how long it ran and
the command on one line; the highlighted one's log path below. Enter shows its output, scrollable
and following (``terminal_output.py``). ``k`` or the Kill button kills it
the kill_terminal tool's way, so its whole process group and
whatever left the group die. The list refreshes every second while open; Esc closes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Label

from agent_tui.durations import elapsed_text
from agent_tui.text_safety import one_line
from agent_tui.ui.terminal_tail import Clock

if TYPE_CHECKING:
    from agent_tui.front.grants import Terminals
    from agent_tui.front.views import TerminalView

COLUMNS = ("id", "state", "ran", "command")
COMMAND_CHARS = 60
REFRESH_S = 1.0


def terminal_row(terminal: TerminalView) -> tuple[str, str, str, str]:
    """One table row; the command is the model's text: one line, control characters shown."""
    command = one_line(terminal.command.replace("\r\n", " ").replace("\n", " "))
    if len(command) > COMMAND_CHARS:
        command = command[: COMMAND_CHARS - 1] + "…"
    return terminal.terminal_id, terminal.status, elapsed_text(terminal.ran_for), command


class TerminalsScreen(ModalScreen[None]):
    """The background terminals table.

    Args:
        terminals: the session's terminals (``Front.terminals``).
        clock: monotonic seconds (``AgentApp.clock``), for how long a running one has run.
    """

    CSS_PATH = "terminals.tcss"
    BINDINGS = [
        Binding("k", "kill", "Kill"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, terminals: Terminals, clock: Clock) -> None:
        super().__init__()
        self.terminals = terminals
        self.shown: list[TerminalView] = []
        self.clock = clock

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Background terminals", id="title")
            yield DataTable[str](id="terminals", cursor_type="row", zebra_stripes=True)
            yield Label("", id="log", markup=False)
            yield Label("", id="empty")
            with Horizontal(id="buttons"):
                yield Button("Kill (k)", id="kill", variant="error")
                yield Label("↑/↓ select · Enter: its output · k kills it and all it started · Esc")

    def on_mount(self) -> None:
        self.query_one(DataTable).add_columns(*COLUMNS)
        self.reload()
        self.set_interval(REFRESH_S, self.reload)

    def _selected(self) -> TerminalView | None:
        table = self.query_one(DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return next((t for t in self.shown if t.terminal_id == key), None)

    def reload(self) -> None:
        """Fill the table again: states change and running times tick while the list is open."""
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear()
        terminals = self.shown = self.terminals.list(self.clock())
        for terminal in terminals:
            table.add_row(*terminal_row(terminal), key=terminal.terminal_id)
        if terminals:
            table.move_cursor(row=min(row, len(terminals) - 1))
        empty = self.query_one("#empty", Label)
        empty.update("No background terminals.")
        empty.display = not terminals
        table.display = bool(terminals)
        self.query_one("#kill", Button).disabled = not terminals
        self._show_log()

    @on(DataTable.RowHighlighted)
    def _show_log(self) -> None:
        selected = self._selected()
        log = self.query_one("#log", Label)
        log.update(f"log: {one_line(str(selected.log_path))}" if selected else "")
        log.display = selected is not None

    @on(DataTable.RowSelected)
    def _open_output(self) -> None:
        selected = self._selected()
        if selected is not None:
            from agent_tui.ui.screens.terminal_output import TerminalOutputScreen

            self.app.push_screen(
                TerminalOutputScreen(self.terminals, selected.terminal_id, self.clock)
            )

    @on(Button.Pressed, "#kill")
    def _kill_pressed(self) -> None:
        self.action_kill()

    def action_kill(self) -> None:
        selected = self._selected()
        if selected is not None:
            self._kill(selected)

    @work(group="kill")
    async def _kill(self, terminal: TerminalView) -> None:
        killed = await self.terminals.kill(terminal.terminal_id)
        if killed is None:
            pass  # gone meanwhile: the reload below drops its row
        elif killed.was_running:
            self.notify(f"Killed {terminal.terminal_id} and its processes.")
        else:
            self.notify(f"{terminal.terminal_id} had already finished ({killed.status}).")
        if self.is_attached:
            self.reload()

    def action_close(self) -> None:
        self.dismiss(None)
