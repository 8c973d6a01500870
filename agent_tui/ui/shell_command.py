"""``!command`` in the prompt: run it now, show it as a card, send its output with the next prompt.

The core part (running it under the terminal tool's environment policy and queueing the result)
is ``agent.user_shell``; this module only draws it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from agent_tui.agent.user_shell import UserCommandResult, run_user_command
from agent_tui.errors import ToolError
from agent_tui.text_safety import visible
from agent_tui.tools.base import ToolContext

PREFIX = "!"
SHOWN_LINES = 40  # the card shows the end; the model gets the capped whole


def shell_command(text: str) -> str | None:
    """The command in ``!command`` input, or None when the input is not one."""
    if not text.startswith(PREFIX):
        return None
    command = text[len(PREFIX) :].strip()
    return command or None


class ShellCard(Static):
    """A ``!command`` the user ran: the command, the end of its output and its exit status."""

    DEFAULT_CSS = """
    ShellCard { margin: 1 0 0 0; padding: 0 1; border-left: thick $secondary; }
    """

    def __init__(self, command: str, status: str = "running…", output: str = "") -> None:
        super().__init__(markup=False)
        self.command, self.status, self.output = command, status, output
        self._draw()

    def finished(self, result: UserCommandResult) -> None:
        self.status, self.output = result.status, result.output
        self._draw()

    def _draw(self) -> None:
        lines = self.output.rstrip("\n").splitlines()
        tail = lines[-SHOWN_LINES:]
        if len(lines) > len(tail):
            tail = [f"[… {len(lines) - len(tail)} earlier lines]", *tail]
        footer = Text(f"{self.status} · sent with your next prompt", style="italic dim")
        body = [Text(f"$ {visible(self.command)}", style="bold")]
        body += [Text(visible(line)) for line in tail]
        self.update(Text("\n").join([*body, footer]))

    def record(self) -> Callable[[], Widget]:
        command, status, output = self.command, self.status, self.output
        return lambda: ShellCard(command, status, output)


async def run_into(card: ShellCard, ctx: ToolContext) -> None:
    """Run the card's command and draw its result (a shell that cannot start shows why)."""
    try:
        card.finished(await run_user_command(ctx, card.command))
    except asyncio.CancelledError:  # Esc: the command's processes are gone, nothing is sent
        card.finished(UserCommandResult(card.command, "cancelled (not sent)", card.output))
        raise
    except ToolError as exc:
        card.finished(UserCommandResult(card.command, f"not run: {exc}", ""))
