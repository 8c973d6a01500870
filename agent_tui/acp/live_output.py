"""A running command's output sent while it runs, at most ``UPDATE_INTERVAL_S`` apart per call.

A command may print 100,000 lines a second in chunks of any size; each ``tool_call_update``
carries the whole output so far (ACP's content replaces the last), so sending one per chunk would
cost quadratic bytes. Output is kept at once and sent at most 10 times a second, as the app's
running card redraws: the first chunk goes out at once, later ones with the next update due, and
an update is scheduled so the last chunk before a quiet spell is not held until the call ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

UPDATE_INTERVAL_S = 0.1  # at most 10 updates a second per call
KEPT_CHARS = 20_000  # of the output so far, the end (what a running command shows) is sent

Send = Callable[[str, str], Awaitable[None]]  # (call id, the output so far)
Clock = Callable[[], float]


class LiveOutput:
    """The output of each running call and when its next update may go out.

    Args:
        send: sends one call's output so far (a ``tool_call_update``).
        clock: monotonic seconds.
    """

    def __init__(self, send: Send, clock: Clock = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._text: dict[str, str] = {}
        self._cut: dict[str, int] = {}  # characters dropped from the start, per call
        self._sent_at: dict[str, float] = {}
        self._pending: dict[str, asyncio.Task[None]] = {}

    async def feed(self, call_id: str, text: str) -> None:
        """More output of ``call_id``: sent now if an update is due, else with the next one."""
        kept = self._text.get(call_id, "") + text
        if len(kept) > KEPT_CHARS:
            self._cut[call_id] = self._cut.get(call_id, 0) + len(kept) - KEPT_CHARS
            kept = kept[-KEPT_CHARS:]
        self._text[call_id] = kept
        if call_id in self._pending:
            return  # the update already scheduled carries it
        wait = self._sent_at.get(call_id, float("-inf")) + UPDATE_INTERVAL_S - self._clock()
        if wait <= 0:
            await self._flush(call_id)
        else:
            task = asyncio.get_running_loop().create_task(self._later(call_id, wait))
            self._pending[call_id] = task

    def finish(self, call_id: str) -> None:
        """The call ended (its result follows): no more updates of its output."""
        task = self._pending.pop(call_id, None)
        if task is not None:
            task.cancel()
        for kept in (self._text, self._cut, self._sent_at):
            kept.pop(call_id, None)

    def close(self) -> None:
        """The turn ended: every scheduled update is dropped."""
        for call_id in list(self._pending):
            self.finish(call_id)

    async def _later(self, call_id: str, wait: float) -> None:
        await asyncio.sleep(wait)
        self._pending.pop(call_id, None)
        await self._flush(call_id)

    async def _flush(self, call_id: str) -> None:
        self._sent_at[call_id] = self._clock()
        cut = self._cut.get(call_id, 0)
        shown = self._text.get(call_id, "")
        await self._send(call_id, f"… ({cut} earlier characters)\n{shown}" if cut else shown)
