"""A terminal of the ACP client (``terminal/*``) that ``run_in_terminal`` may run a command in,
instead of spawning it itself; ``acp/client_terminal.py`` holds the implementation.

The sandbox cannot reach into a process the editor starts, so the ACP front end offers one only
when the user's sandbox is off (README, "Editors"): with it on, commands run here, sandboxed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class ClientRun:
    """How a command run in the client's terminal ended."""

    output: str
    exit_code: int | None  # None: killed by a signal, or timed out
    signal: str | None = None
    truncated: bool = False  # the client kept only the end of the output
    timed_out: bool = False
    terminal_id: str = ""  # the client's, shown in the tool call after the run


class ClientTerminal(Protocol):
    async def run(
        self, call_id: str, argv: list[str], cwd: Path, env: dict[str, str], timeout: float
    ) -> ClientRun:
        """Run ``argv`` in ``cwd`` (``env`` on top of the client's own), shown in the tool call
        ``call_id``; killed after ``timeout`` seconds, or when the turn is cancelled.

        Raises:
            ToolError: the client refused or failed to run it.
        """
        ...
