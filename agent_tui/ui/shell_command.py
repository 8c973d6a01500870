"""``!command`` in the prompt: the card that shows it (its output goes with the next prompt).

The core runs it (``agent.front.submit`` -> ``agent.user_shell``: the terminal tool's environment
policy, the result queued for the next prompt); this module only draws its events.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.plural import plural
from agent_tui.text_safety import visible

SHOWN_LINES = 40  # the card shows the end; the model gets the capped whole


class ShellCard(Static):
    """A ``!command`` the user ran: the command, the end of its output and its exit status."""

    DEFAULT_CSS = """
    ShellCard { margin: 1 0 0 0; padding: 0 1; border-left: thick $secondary; }
    """

    def __init__(self, command: str, status: str = "running…", output: str = "") -> None:
        super().__init__(markup=False)
        self.command, self.status, self.output = command, status, output
        self._draw()

    def finished(self, status: str, output: str) -> None:
        self.status, self.output = status, output
        self._draw()

    def _draw(self) -> None:
        lines = self.output.rstrip("\n").splitlines()
        tail = lines[-SHOWN_LINES:]
        if len(lines) > len(tail):
            tail = [f"[… {plural(len(lines) - len(tail), 'earlier line')}]", *tail]
        footer = Text(f"{self.status} · sent with your next prompt", style="italic dim")
        body = [Text(f"$ {visible(self.command)}", style="bold")]
        body += [Text(visible(line)) for line in tail]
        self.update(Text("\n").join([*body, footer]))

    def record(self) -> Callable[[], Widget]:
        command, status, output = self.command, self.status, self.output
        return lambda: ShellCard(command, status, output)
