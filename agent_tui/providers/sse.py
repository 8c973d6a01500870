"""Server-sent events: a pure, incremental parser and the streaming helper.

The parser follows the WHATWG event-stream rules
(https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
lines end in CRLF, LF or CR; ``:`` starts a comment; ``data`` lines join with ``\\n``; a blank line
dispatches; an event with no data is dropped; a partial event at the end of the stream is dropped.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class SSEEvent:
    """One server-sent event: its type, its data and the optional id and retry fields."""

    event: str | None
    data: str
    id: str | None = None
    retry: int | None = None


class SSEParser:
    """Feed it text as it arrives (any split); it returns the events completed so far."""

    def __init__(self) -> None:
        self._buffer = ""
        self._pending_cr = False  # the last chunk ended in CR: a following LF belongs to it
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, text: str) -> list[SSEEvent]:
        """Add a piece of the stream.

        Args:
            text: decoded text, split anywhere (even inside a line or a CRLF).

        Returns:
            The events whose terminating blank line arrived in this piece.
        """
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]
        self._pending_cr = text.endswith("\r")
        self._buffer += text
        lines = self._buffer.splitlines(keepends=True)
        # splitlines also breaks on \v, \f, \x1c.. which SSE treats as ordinary characters.
        lines = _rejoin(lines)
        self._buffer = lines.pop() if lines and not lines[-1].endswith(("\r", "\n")) else ""
        events = []
        for line in lines:
            event = self._line(line.rstrip("\r\n"))
            if event is not None:
                events.append(event)
        return events

    def _line(self, line: str) -> SSEEvent | None:
        if not line:
            return self._dispatch()
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)
        elif name == "id" and "\0" not in value:
            self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None

    def _dispatch(self) -> SSEEvent | None:
        event, data = self._event, self._data
        self._event, self._data = None, []
        if not data:
            return None
        return SSEEvent(event=event, data="\n".join(data), id=self._id, retry=self._retry)


def _rejoin(lines: list[str]) -> list[str]:
    """Undo splits that str.splitlines makes at characters SSE does not treat as line ends."""
    out: list[str] = []
    for line in lines:
        if out and not out[-1].endswith(("\r", "\n")):
            out[-1] += line
        else:
            out.append(line)
    return out


class SSEResponse(Protocol):
    """What the transports' responses share (httpx.Response, http11.Response)."""

    @property
    def status_code(self) -> int: ...

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    async def aread(self) -> bytes: ...

    def aiter_text(self) -> AsyncIterator[str]: ...


async def aiter_sse(response: SSEResponse) -> AsyncIterator[SSEEvent]:
    """Yield the events of a streaming response (httpx or http11) as they arrive.

    Raises:
        httpx.TransportError: the connection broke (the caller maps it to StreamInterrupted).
    """
    parser = SSEParser()
    async for text in response.aiter_text():
        for event in parser.feed(text):
            yield event
