"""Quitting the app: Ctrl+C, Ctrl+Q, ``/exit``, at any moment, silently.

Ctrl+C first clears a non-empty prompt (as in a shell); on an empty one, a second Ctrl+C within
``QUIT_WINDOW_S`` quits. Quitting cancels the running turn and *waits* for its worker to finish
before the app tears its widgets down: a worker still drawing ("Turn cancelled.", a card's last
state) into a half-removed DOM was what raised ``NoMatches`` / ``MountError`` tracebacks. Then the
agent closes what it started (MCP servers, terminals, the provider's connection) and the app exits 0.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerCancelled, WorkerFailed

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp

logger = logging.getLogger(__name__)

QUIT_WINDOW_S = 2.0  # the second Ctrl+C must come within this many seconds
TURN_STOP_TIMEOUT_S = 5.0  # a turn that ignores cancellation this long is left to the shutdown


class QuitFlow:
    """Ctrl+C and every way out of ``app``; ``quitting`` tells drawing code to stand down."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.quitting = False
        self._last_ctrl_c = 0.0

    def ctrl_c(self) -> None:
        """End Ctrl+R's search, or clear a non-empty prompt; else warn, and quit when pressed
        again in time."""
        app = self.app
        prompt = app.prompt_input
        # Only the prompt the user can see: under a dialog, Ctrl+C goes towards quitting.
        if prompt.search is not None and prompt.screen is app.screen:
            prompt.cancel_search()  # Ctrl+R's search first: the text typed is still there
            self._last_ctrl_c = 0.0
            return
        if prompt.text and prompt.screen is app.screen:
            prompt.clear()
            self._last_ctrl_c = 0.0
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            self.start()
        else:
            self._last_ctrl_c = now
            app.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_S)

    def start(self) -> None:
        """Quit in a worker of its own: ``quit`` waits for the turn's worker to end."""
        self.app.run_worker(self.quit(), group="quit")

    async def quit(self) -> None:
        """Stop the turn, close the agent, exit 0; a second call does nothing."""
        if self.quitting:
            return
        self.quitting = True
        await self._stop_turn(self.app.turn_worker)
        await self.app.shutdown_agent()
        self.app.exit(0)

    @staticmethod
    async def _stop_turn(worker: Worker[None] | None) -> None:
        if worker is None or worker.is_finished:
            return
        worker.cancel()
        try:
            await asyncio.wait_for(worker.wait(), TURN_STOP_TIMEOUT_S)
        except (WorkerCancelled, WorkerFailed, TimeoutError):
            pass  # cancelled is the expected end; a failure was already logged by the worker
