"""The headless TTY question shows a hostile command's control characters (issue 10 §2).

prompt_toolkit's terminal output already turns ESC into "?" (so ``ESC[2K`` read as ``?[2K``, which
hides what it is) but passes C1 controls, bidi overrides and CR through; the question now shows all
of them as in the TUI.
"""

from __future__ import annotations

import asyncio
import io

from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from agent_tui.approvals.types import Verdict
from agent_tui.events import ApprovalRequested
from agent_tui.headless_prompt import ask_on_tty
from agent_tui.tools.base import Confirmation, Prepared

COMMAND = "rm -rf victim '\x1b[2K\x1b[1G ls -la' \x9b2J \u202eevil\rover"


async def test_the_tty_question_shows_control_characters() -> None:
    event = ApprovalRequested(
        call_id="call_1",
        name="run_in_terminal",
        input={"command": COMMAND},
        prepared=Prepared("Running", "Ran", Confirmation("Run command?", f"```sh\n{COMMAND}\n```")),
        verdict=Verdict("ask", "default", f"asked: `{COMMAND}` matches no terminal rule"),
        suggested_pattern=COMMAND,
        decision=asyncio.get_running_loop().create_future(),
    )
    terminal = io.StringIO()
    output = Vt100_Output(terminal, lambda: Size(rows=24, columns=200), term="xterm")
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output):
        pipe.send_text("n\r")
        decision = await ask_on_tty(event)
    assert not decision.allow
    written = terminal.getvalue()
    assert "rm -rf victim '␛[2K␛[1G ls -la' \\x9b2J \\u202eevil␍over" in written
    assert "\x9b" not in written and "\u202e" not in written
