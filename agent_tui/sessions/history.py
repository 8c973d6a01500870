"""A resumed session's conversation, parsed from its file after the first screen is drawn.

``load`` only skims the file (sessions/loader.py): the first screen is drawn from that. The
:class:`History` parses its message lines into the conversation ``STEP_MESSAGES`` at a time,
yielding to the event loop between steps so typing goes on meanwhile. There is one way to the
conversation and it waits for the whole of it: ``complete()`` (awaited by the agent before any
turn or command, ``agent/loop.py``) parses in steps, ``finish()`` (a synchronous reader of the
conversation) parses what is left on the spot.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, BinaryIO

from agent_tui.conversation import Conversation, Message
from agent_tui.sessions.loader import (
    CHUNK_LINES,
    CompactionEntry,
    MessageLine,
    RawEvent,
    RewindEntry,
    parse_all,
    read_back,
)

if TYPE_CHECKING:
    from agent_tui.sessions.loader import LoadedSession

logger = logging.getLogger(__name__)

STEP_MESSAGES = 200  # per step in the background: a few milliseconds, so typing stays as fresh


class History:
    """The conversation of ``loaded``, parsed from the file open as ``handle`` (closed once the
    conversation is complete: a file deleted meanwhile is still read whole)."""

    def __init__(self, loaded: LoadedSession, handle: BinaryIO) -> None:
        self._loaded = loaded
        self._handle: BinaryIO | None = handle
        self._cursor = 0  # the next entry to apply
        self._conversation = Conversation()
        self._task: asyncio.Task[Conversation] | None = None
        self._then: list[Callable[[Conversation], None]] = []
        self.done = False
        self.steps = 0  # steps taken (tests read the order of things from it)

    def then(self, callback: Callable[[Conversation], None]) -> None:
        """Call ``callback`` with the conversation once it is complete (now, if it is)."""
        if self.done:
            callback(self._conversation)
        else:
            self._then.append(callback)

    def finish(self) -> Conversation:
        """The whole conversation, what is left of it parsed now."""
        while not self.step(CHUNK_LINES):
            pass
        return self._conversation

    async def complete(self) -> Conversation:
        """The whole conversation, parsed a step at a time between other work (one parse,
        however many wait for it)."""
        if self.done:
            return self._conversation
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._steps())
        return await asyncio.shield(self._task)

    async def _steps(self) -> Conversation:
        while not self.step():
            await asyncio.sleep(0)
        return self._conversation

    def close(self) -> None:
        """Stop parsing (the app is closing): the file is let go."""
        if self._task is not None:
            self._task.cancel()
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def step(self, size: int | None = None) -> bool:
        """Apply the next ``size`` messages (``STEP_MESSAGES``; and the rewinds and compactions
        among them) to the conversation; True once it is complete."""
        if self.done:
            return True
        size = size or STEP_MESSAGES
        entries = self._loaded.entries
        n, chunk, count = self._cursor, list[MessageLine | RewindEntry | CompactionEntry](), 0
        while n < len(entries) and count < size:
            entry = entries[n]
            n += 1
            if not isinstance(entry, RawEvent):
                chunk.append(entry)
                count += isinstance(entry, MessageLine)
        self._cursor = n
        self.steps += 1
        if not self._apply(chunk) or n >= len(entries):
            self._complete()
        return self.done

    def _apply(self, chunk: list[MessageLine | RewindEntry | CompactionEntry]) -> bool:
        """Apply ``chunk`` in file order; False when the file could not be read any more."""
        conversation = self._conversation
        lines = [e for e in chunk if isinstance(e, MessageLine)]
        try:
            if self._handle is None:
                raise OSError("the session was closed")
            raw = read_back(self._handle.fileno(), lines)
        except OSError as exc:
            logger.error("session %s: cannot read its messages: %s", self._loaded.id, exc)
            return False
        parsed = parse_all([raw[e.position] for e in lines if e.position in raw])
        for entry in chunk:
            try:
                if isinstance(entry, RewindEntry):
                    conversation.truncate(entry.to)
                elif isinstance(entry, CompactionEntry):
                    conversation.compact(entry.upto, entry.summary)
                elif entry.position in raw:
                    value = next(parsed) if parsed is not None else json.loads(raw[entry.position])
                    conversation.append(Message.from_dict(value["message"]))
            except (ValueError, KeyError, TypeError, StopIteration) as exc:
                self._loaded.skipped += 1
                position = getattr(entry, "position", "?")
                logger.warning("%s line %s skipped: %s", self._loaded.id, position, exc)
        return True

    def _complete(self) -> None:
        self.done = True
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        callbacks, self._then = self._then, []
        for callback in callbacks:
            callback(self._conversation)
