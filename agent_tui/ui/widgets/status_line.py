"""``[ui] status_line``: the first line the user's command prints, under the prompt.

Once a second the widget takes the session's state (``Front.status_line.state``) and, when it
changed since the last run (the session's running time aside), runs the command in a worker: the
UI never waits for it, a slow one is killed at its timeout, and a run never starts while another
is going. Its line keeps its colours (SGR sequences become Rich styles); every other control or
invisible character is shown as a visible stand-in (``text_safety``), so a script cannot clear the
screen, retitle the window or hide text. A failing command shows its one-line error, once: the
same error again changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from agent_tui.text_safety import one_line
from agent_tui.ui.ansi_text import ansi_line

if TYPE_CHECKING:
    from agent_tui.front.status_line import Measured, StatusLine

INTERVAL_S = 1.0  # at most one run a second


def _unchanged_key(state: dict[str, Any]) -> str:
    """The state without the session's running time, which changes every second."""
    cost = {k: v for k, v in state.get("cost", {}).items() if k != "total_duration_ms"}
    return repr({**state, "cost": cost})


class CommandStatusLine(Static):
    """The status-line command's output (hidden while no command is set).

    Args:
        source: ``Front.status_line``.
        measured: what the app measured (the last prompt's tokens, the session's running time).
    """

    DEFAULT_CSS = """
    CommandStatusLine {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    CommandStatusLine.-error {
        color: $text-error;
    }
    """

    def __init__(
        self, source: StatusLine, measured: Callable[[], Measured], *, id: str | None = None
    ) -> None:
        super().__init__("", id=id, markup=False)
        self.source = source
        self.measured = measured
        self.runs = 0  # commands run (tests count them)
        self._command_running = False
        self._last_key: str | None = None
        self._last_error: str | None = None
        self.display = source.command is not None  # no empty row before the first run

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(INTERVAL_S, self.tick)

    def tick(self) -> None:
        """Run the command if the state changed and no run is going."""
        if self._command_running:
            return
        if self.source.command is None:  # unset, or the folder's command before trust
            self.display = False
            return
        state = self.source.state(self.measured())
        key = _unchanged_key(state)
        if key == self._last_key:
            return
        self._last_key = key
        self._command_running = True
        self.run_worker(self._run(state), group="status-line")

    async def _run(self, state: dict[str, Any]) -> None:
        try:
            output = await self.source.run(state)
        finally:
            self._command_running = False
        self.runs += 1
        self.display = True
        if output.error is None:
            self._last_error = None
            self.remove_class("-error")
            line = ansi_line(output.line)
            line.overflow = "ellipsis"
            self.update(line)
        elif output.error != self._last_error:
            self._last_error = output.error
            self.add_class("-error")
            self.update(Text(one_line(output.error), no_wrap=True, overflow="ellipsis"))
