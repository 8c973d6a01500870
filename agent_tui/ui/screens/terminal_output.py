"""A background terminal's output, scrollable and following what it prints (``/terminals``, Enter).

Like Claude Code's ``/bashes``: the output so far (a long log from its last 256 KiB) and then
whatever the command prints, read from its log every ``POLL_S``. The view follows new output while
it is scrolled to the end; scrolled up, it stays where the person is reading (End follows again).
The output is the command's: colours are kept, every other control sequence or character is
shown as a visible stand-in (``ui/ansi_text.py``). ``k`` kills the terminal; Esc goes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RichLog

from agent_tui.durations import elapsed_text
from agent_tui.text_safety import one_line
from agent_tui.ui.ansi_text import ansi_line
from agent_tui.ui.terminal_tail import Clock

if TYPE_CHECKING:
    from agent_tui.front.grants import Terminals
    from agent_tui.front.terminal_output import OutputReader

POLL_S = 0.25  # how often the log is read for new output
MAX_LINES = 5000  # kept in the view; older lines are in the log file
LINE_CHARS = 2000  # a line held back for its newline is shown once it is this long
TITLE_CHARS = 60  # of the command, in the title


class TerminalOutputScreen(ModalScreen[None]):
    """One terminal's output.

    Args:
        terminals: the session's terminals (``Front.terminals``).
        terminal_id: the terminal to show.
        clock: monotonic seconds (``AgentApp.clock``), for how long it has run.
    """

    CSS_PATH = "terminal_output.tcss"
    BINDINGS = [
        Binding("k", "kill", "Kill"),
        Binding("escape,q", "close", "Back"),
    ]

    def __init__(self, terminals: Terminals, terminal_id: str, clock: Clock) -> None:
        super().__init__()
        self.terminals = terminals
        self.terminal_id = terminal_id
        self.clock = clock
        self.reader: OutputReader | None = None
        self.lines_shown = 0  # lines written to the view (tests wait on it)
        self._partial = ""  # the line still being written (no newline yet)

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("", id="title", markup=False)
            yield RichLog(id="output", max_lines=MAX_LINES, wrap=False, auto_scroll=False)
            yield Label("↑/↓ PgUp/PgDn scroll · End follows · k kills it · Esc back", id="hint")

    def on_mount(self) -> None:
        self.reader = self.terminals.output(self.terminal_id)
        self.query_one(RichLog).focus()
        self.poll()
        self.set_interval(POLL_S, self.poll)

    def poll(self) -> None:
        """Show what the command printed since the last poll, and its state in the title."""
        running = self._show_title()
        if self.reader is None:
            return
        first = self.reader.offset == 0
        text = self.reader.read()
        if first and self.reader.skipped:
            self._write(f"[… {self.reader.skipped:,} earlier bytes: {self.reader.log_path}]")
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        if self._partial and (not running or len(self._partial) >= LINE_CHARS):
            lines.append(self._partial)  # nothing will finish this line, or it is long enough
            self._partial = ""
        for line in lines:
            self._write(line.removesuffix("\r"))

    def _write(self, line: str) -> None:
        view = self.query_one(RichLog)
        # Follow only while at the end: scrolled up, the person is reading and stays put.
        view.write(ansi_line(line[:LINE_CHARS]), scroll_end=view.is_vertical_scroll_end)
        self.lines_shown += 1

    def _show_title(self) -> bool:
        """Set the title (id, state, how long, command); whether the terminal still runs."""
        found = [t for t in self.terminals.list(self.clock()) if t.terminal_id == self.terminal_id]
        if not found:
            self.query_one("#title", Label).update(f"{self.terminal_id}: gone")
            return False
        terminal = found[0]
        command = one_line(terminal.command)
        if len(command) > TITLE_CHARS:
            command = command[: TITLE_CHARS - 1] + "…"
        ran = elapsed_text(terminal.ran_for)
        self.query_one("#title", Label).update(
            f"{terminal.terminal_id} · {terminal.status} · {ran} · $ {command}"
        )
        return terminal.status == "running"

    def action_kill(self) -> None:
        self._kill()

    @work(group="kill")
    async def _kill(self) -> None:
        killed = await self.terminals.kill(self.terminal_id)
        if killed is not None and killed.was_running:
            self.notify(f"Killed {self.terminal_id} and its processes.")

    def action_close(self) -> None:
        self.dismiss(None)
