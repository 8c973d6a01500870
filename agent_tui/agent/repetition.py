"""A reply that repeats itself while it streams: the same block of text, over and over.

A small model at a loose temperature can fall into a loop and write one paragraph until
``max_tokens`` (on a laptop's CPU, minutes). :class:`RepetitionWatch` reads the reply as it
arrives and says when its end has become the same block repeated: the last characters of the
text are periodic, the period (the block) holding some words, seen :data:`MIN_REPEATS` times in a
row over at least :data:`MIN_SPAN` characters. Lines, paragraphs or a sentence looping inside one
line are all periods of the text, so one test finds each. The round is then stopped.

Candidate periods come from the earlier places the reply's last :data:`PROBE` characters occur
(the nearest first), so a check costs a few ``rfind`` and comparisons over the tail, run every
:data:`CHECK_EVERY` characters.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_REPEATS = 4  # copies of the block in a row
MIN_SPAN = 600  # characters the copies cover, so a short line written a few times is not a loop
MIN_WORD_CHARS = 8  # letters or digits in the block: a row of zeros or dashes is not a loop
CHECK_EVERY = 128  # characters of new text between two checks
WINDOW = 16_384  # the tail of the reply that is looked at (a longer block is not caught)
PROBE = 32
MAX_CANDIDATES = 8


@dataclass(frozen=True)
class Repetition:
    """The block the reply repeats and how many times in a row it ends with it."""

    block: str
    count: int


def repeated_tail(text: str) -> Repetition | None:
    """The block ``text`` ends repeating, when it is a loop by the thresholds above."""
    size = len(text)
    if size < MIN_SPAN:
        return None
    probe = text[-PROBE:]
    end = size - 1  # an earlier occurrence of the probe: it ends before the text does
    for _ in range(MAX_CANDIDATES):
        found = text.rfind(probe, 0, end)
        if found < 0:
            return None
        period = size - PROBE - found
        count = _copies(text, period)
        block = text[-period:]
        if count >= MIN_REPEATS:
            # The shortest period decides: a longer one is copies of it ("0, 0, " of "0, ").
            wordy = sum(ch.isalnum() for ch in block) >= MIN_WORD_CHARS
            return Repetition(block, count) if wordy and count * period >= MIN_SPAN else None
        end = found + PROBE - 1
    return None


def _copies(text: str, period: int) -> int:
    """How many copies of its last ``period`` characters ``text`` ends with."""
    block = text[-period:]
    count = 1
    while (count + 1) * period <= len(text) and text[
        len(text) - (count + 1) * period : len(text) - count * period
    ] == block:
        count += 1
    return count


class RepetitionWatch:
    """Fed a reply's text as it streams; :meth:`feed` returns the loop once there is one."""

    def __init__(self) -> None:
        self._tail = ""
        self._pending: list[str] = []
        self._unchecked = 0

    def feed(self, text: str) -> Repetition | None:
        self._pending.append(text)
        self._unchecked += len(text)
        if self._unchecked < CHECK_EVERY:
            return None
        self._unchecked = 0
        self._tail = (self._tail + "".join(self._pending))[-WINDOW:]
        self._pending = []
        return repeated_tail(self._tail)


def without_repeats(text: str, found: Repetition) -> str:
    """``text`` up to the end of the first copy of the block it ends repeating (what came before
    the loop and the loop once)."""
    period = len(found.block)
    start = len(text) - found.count * period
    # The loop may have begun before the copies counted: mid-block, or before the tail looked at.
    while start > 0 and text[start - 1] == text[start - 1 + period]:
        start -= 1
    return text[: start + period]
