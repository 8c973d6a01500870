"""A running command's live output on its card: the last lines, the elapsed time, when to redraw.

A command may print 100,000 lines a second in chunks of any size. Keeping the last lines costs a
split from the right of each chunk; drawing them is what costs, so a card redraws at most every
``REDRAW_INTERVAL_S`` (10 a second) however fast the output comes: output that arrives between two
redraws only updates the kept lines. The clock is injectable (``AgentApp.clock``) so tests and
snapshots can freeze the elapsed time instead of sleeping.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable

from textual.dom import DOMNode

TAIL_LINES = 5  # lines of output a running card shows
LINE_CHARS = 400  # kept of each line: the card cuts them to its width, a 10 MB line is not kept
REDRAW_INTERVAL_S = 0.1  # at most 10 redraws a second

Clock = Callable[[], float]


def app_clock(node: DOMNode) -> Clock:
    """The app's clock (``AgentApp.clock``, monotonic seconds), or the real one outside it."""
    clock = getattr(node.app, "clock", None)
    return clock if callable(clock) else time.monotonic


class OutputTail:
    """The last ``size`` lines of a stream of text that arrives in chunks of any size.

    A line still being written (no newline yet) is the last line shown, as a terminal would show
    it. Each line keeps at most ``line_chars`` characters (its start, with ``…`` when cut).
    """

    def __init__(self, size: int = TAIL_LINES, line_chars: int = LINE_CHARS) -> None:
        self.size = size
        self.line_chars = line_chars
        self._done: deque[str] = deque(maxlen=size)  # complete lines
        self._partial = ""  # the line still being written

    def _cut(self, line: str) -> str:
        # A CRLF line end is one line end, not a visible CR.
        line = line.removesuffix("\r")
        return line if len(line) <= self.line_chars else line[: self.line_chars] + "…"

    def feed(self, text: str) -> None:
        """Add a chunk of output; only its last ``size`` lines are looked at closely."""
        if "\n" not in text:
            if len(self._partial) <= self.line_chars:  # past that it is cut anyway
                self._partial += text[: self.line_chars + 1]
            return
        # From the right: a 64 KiB chunk of short lines costs one split of its last lines.
        parts = text.rsplit("\n", self.size)
        first, *rest = parts
        _, earlier, line = first.rpartition("\n")
        # ``first`` holds the chunk's earlier lines, or else ends the line being written.
        self._done.append(self._cut(line if earlier else self._partial + line))
        *complete, self._partial = rest
        self._done.extend(self._cut(line) for line in complete)
        self._partial = self._partial[: self.line_chars + 1]

    def lines(self) -> list[str]:
        """The lines to show, oldest first."""
        shown = list(self._done)
        if self._partial:
            shown.append(self._cut(self._partial))
        return shown[-self.size :]


class LiveOutput:
    """A running call's output tail and start time, and whether the card should redraw now.

    Args:
        clock: monotonic seconds (``app_clock``).
    """

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.started = clock()
        self.tail = OutputTail()
        self.chunks = 0  # output chunks received
        self.redraws = 0  # times the card drew them (the bench and tests count these)
        self._dirty = False
        self._drawn_at: float | None = None
        self._drawn_second = -1

    def feed(self, text: str) -> None:
        self.tail.feed(text)
        self.chunks += 1
        self._dirty = True

    def elapsed(self) -> float:
        return self.clock() - self.started

    def due(self) -> bool:
        """Whether there is something new to draw (output, or the next second) and the last
        redraw is at least ``REDRAW_INTERVAL_S`` old."""
        now = self.clock()
        if self._drawn_at is not None and now - self._drawn_at < REDRAW_INTERVAL_S:
            return False
        return self._dirty or int(now - self.started) != self._drawn_second

    def drawn(self) -> None:
        """The card has just drawn the current lines and elapsed time."""
        now = self.clock()
        self._drawn_at = now
        self._drawn_second = int(now - self.started)
        self._dirty = False
        self.redraws += 1
