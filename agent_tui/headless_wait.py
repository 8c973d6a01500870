"""``-p`` on a terminal: one line on stderr while the model has not answered yet.

A cold local model can take minutes before its first token; without this the terminal shows
nothing and looks hung. The line (``waiting for the model (prompt ≈1,234 tokens) · 12 s``) is
rewritten in place once a second and erased when anything else is printed. Nothing is written
when stderr is not a terminal: scripts and logs get no carriage returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import IO

from agent_tui.durations import waiting_text

ERASE = "\r\x1b[2K"  # to the line's start, then clear it
TICK_S = 1.0


class WaitLine:
    """The in-place waiting line; ``start`` when a request goes, ``stop`` on anything else."""

    def __init__(self, err: IO[str]) -> None:
        self.err = err
        try:
            self.enabled = err.isatty()
        except (AttributeError, ValueError):
            self.enabled = False
        self._task: asyncio.Task[None] | None = None

    def start(self, prompt_tokens: int) -> None:
        if not self.enabled:
            return
        self.stop()
        self._task = asyncio.get_running_loop().create_task(self._tick(prompt_tokens))

    async def _tick(self, prompt_tokens: int) -> None:
        started = time.monotonic()
        while True:
            self.err.write(ERASE + waiting_text(prompt_tokens, time.monotonic() - started))
            self.err.flush()
            await asyncio.sleep(TICK_S)

    def stop(self) -> None:
        """Erase the line (if shown) before anything else is printed."""
        if self._task is None:
            return
        self._task.cancel()
        self._task = None
        with contextlib.suppress(ValueError, OSError):  # stderr closed under us
            self.err.write(ERASE)
            self.err.flush()
