"""Reading a session back: replay its lines in order.

``message`` lines append, ``rewind`` truncates, ``compaction`` compacts, exactly as the live
conversation changed; ``event`` lines are kept by their place in the file and decoded back into
``events.py`` objects when a turn is drawn again (``LoadedSession.drawable``). A torn last line (a crash mid-write) is ignored; any other undecodable line is
skipped with a warning, never fatal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sys
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Union

from agent_tui import events as ev
from agent_tui.conversation import Conversation, Message, ToolResultBlock, ToolUseBlock
from agent_tui.safe_read import FileTooLarge, open_regular
from agent_tui.sessions.store import MAX_SESSION_BYTES

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MessageEntry:
    """A message appended at ``index`` of the conversation."""

    index: int
    message: Message


@dataclass(frozen=True)
class RewindEntry:
    to: int


@dataclass(frozen=True)
class CompactionEntry:
    """``messages[:upto]`` became one summary (the indexes after it moved down)."""

    upto: int


@dataclass(frozen=True, slots=True)
class RawEvent:
    """An event line not decoded yet, by where it is in the file (most are never needed: only
    the turns drawn are, read back then). ``raw`` is kept only for the kinds the timeline reads
    (``KEPT_KINDS``): a 10,000-message session holds a few ints per event, not its bytes."""

    position: int  # the line's number
    offset: int  # where the line starts in the file, and its length
    length: int
    kind: str
    raw: bytes = b""

    @property
    def starts_turn(self) -> bool:
        return self.kind == "turn_started"


Entry = MessageEntry | RewindEntry | CompactionEntry | ev.Event
_EVENT_LINE = b'{"type":"event"'  # how writer.py starts an event line
_EVENT_KIND = b'{"type":"event","event":"'
KEPT_KINDS = frozenset({"turn_started", "checkpoint_restored"})  # see sessions/timeline.py
CHUNK_LINES = 500  # message lines parsed per json call: fast, and the parsed tree stays small


@dataclass
class LoadedSession:
    """A session file read back.

    Attributes:
        header: the first line (id, workspace, model, started, title).
        conversation: the conversation as the next request would be built from it.
        entries: messages, rewinds and (undecoded) events in file order.
        skipped: lines that could not be read (a torn last line counts here).
    """

    header: dict[str, Any]
    conversation: Conversation
    path: Path | None = None  # where the events are read back from
    entries: list[MessageEntry | RewindEntry | CompactionEntry | RawEvent] = field(
        default_factory=list
    )
    skipped: int = 0
    name: str = ""  # the last name given (``meta`` lines, or the header's); "": never named
    _calls: _CallBlocks = field(default_factory=lambda: _CallBlocks())

    @property
    def id(self) -> str:
        return str(self.header.get("id", ""))

    @property
    def label(self) -> str:
        """Its name, else its title."""
        return self.name or str(self.header.get("title", ""))

    def drawable(self, start: int = 0, end: int | None = None) -> list[Entry]:
        """``entries[start:end]`` with their events decoded.

        Decoding is the slow part of loading, so a long session decodes only what is drawn.
        """
        entries = self.entries[start:end]
        lines = self._event_lines([e for e in entries if isinstance(e, RawEvent)])
        classes = _event_classes()
        out: list[Entry] = []
        for entry in entries:
            if not isinstance(entry, RawEvent):
                out.append(entry)
                continue
            if entry.position not in lines:
                continue  # the file could not be read again (said once, in _event_lines)
            try:
                line = json.loads(lines[entry.position])
                event = decode_event(self._calls.restore(entry.position, line), classes)
            except (ValueError, KeyError, TypeError) as exc:
                logger.warning("session %s line %d skipped: %s", self.id, entry.position, exc)
                continue
            if event is not None:
                out.append(event)
        return out

    def _event_lines(self, events: list[RawEvent]) -> dict[int, bytes]:
        """The lines of ``events`` by number, read back in one read (a turn's are together).
        The file only grows while the session is open, so their offsets still hold."""
        if not events:
            return {}
        lines = {e.position: e.raw for e in events if e.raw}
        wanted = [e for e in events if not e.raw]
        if not wanted or self.path is None:
            return lines
        low = wanted[0].offset
        high = max(e.offset + e.length for e in wanted)
        try:
            with open_regular(self.path) as handle:
                handle.seek(low)
                block = handle.read(high - low)
        except OSError as exc:
            logger.warning("session %s: cannot read its events again: %s", self.id, exc)
            return lines
        for e in wanted:
            lines[e.position] = block[e.offset - low : e.offset - low + e.length]
        return lines


class SessionFileError(ValueError):
    """The file is not a session (no header line)."""


def load(path: Path) -> LoadedSession:
    """Read a session file: the conversation now, the events kept by place for ``drawable``.

    The file is read line by line and its message lines parsed ``CHUNK_LINES`` at a time, so
    the whole file is never in memory at once (the peak of resuming a long session).

    Raises:
        OSError: it cannot be read (or is not a regular file, or over MAX_SESSION_BYTES).
        SessionFileError: its first line is not a session header.
    """
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > MAX_SESSION_BYTES:
            raise FileTooLarge(path, size, MAX_SESSION_BYTES)
        first = handle.readline(MAX_SESSION_BYTES)
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("type") != "session":
            raise SessionFileError(f"{path.name} is not a session file")
        loaded = LoadedSession(header, Conversation(), path, name=str(header.get("name", "")))
        offset, chunk = len(first), []
        for number, raw in enumerate(handle, start=2):
            if offset > MAX_SESSION_BYTES:  # it grew while read
                raise FileTooLarge(path, offset, MAX_SESSION_BYTES)
            chunk.append((number, offset, raw))
            offset += len(raw)
            if len(chunk) >= CHUNK_LINES:
                _load_chunk(loaded, chunk)
                chunk = []
        _load_chunk(loaded, chunk)
    return loaded


def _load_chunk(loaded: LoadedSession, chunk: list[tuple[int, int, bytes]]) -> None:
    """Lines of the file in order: events kept by place, the others parsed and applied."""
    parsed = _parse_all([raw for _, _, raw in chunk if not raw.startswith(_EVENT_LINE)])
    for number, offset, raw in chunk:
        if raw.startswith(_EVENT_LINE):
            kind = _event_kind(raw)
            kept = raw if kind in KEPT_KINDS else b""
            loaded.entries.append(RawEvent(number, offset, len(raw), kind, kept))
            continue
        if not raw.strip():
            continue
        try:
            line = next(parsed) if parsed is not None else json.loads(raw)
            _apply(loaded, line, loaded._calls, number)
        except (ValueError, KeyError, TypeError) as exc:
            loaded.skipped += 1
            if raw.endswith(b"\n") or raw.rstrip().endswith(b"}"):  # not just a torn last line
                logger.warning("%s line %d skipped: %s", loaded.id, number, exc)


def _event_kind(raw: bytes) -> str:
    """The event's type, read from the line's fixed start (writer.py writes it first)."""
    if not raw.startswith(_EVENT_KIND):
        return ""
    end = raw.find(b'"', len(_EVENT_KIND))
    return sys.intern(raw[len(_EVENT_KIND) : end].decode("ascii", "replace")) if end > 0 else ""


def _parse_all(lines: list[bytes]) -> Iterator[Any] | None:
    """Every line parsed in one call (a third of the time of one call per line), or None
    when one of them is not JSON (a torn last line): then each is parsed on its own."""
    lines = [raw for raw in lines if raw.strip()]
    try:
        values = json.loads(b"[" + b",".join(lines) + b"]")
    except ValueError:
        return None
    return iter(values) if isinstance(values, list) and len(values) == len(lines) else None


def _apply(loaded: LoadedSession, line: dict[str, Any], calls: _CallBlocks, position: int) -> None:
    conversation = loaded.conversation
    kind = line["type"]
    if kind == "message":
        message = Message.from_dict(line["message"])
        calls.add(position, message)
        loaded.entries.append(MessageEntry(len(conversation.messages), message))
        conversation.append(message)
    elif kind == "rewind":
        to = int(line["to"])
        conversation.truncate(to)
        loaded.entries.append(RewindEntry(to))
    elif kind == "compaction":
        upto = int(line["upto"])
        conversation.compact(upto, str(line["summary"]))
        loaded.entries.append(CompactionEntry(upto))
    elif kind == "meta":
        loaded.name = str(line.get("name", loaded.name))
    # other types: written by a newer version; skipped


@dataclass
class _CallBlocks:
    """Where each call's input and result content appear in the file (by line position)."""

    inputs: dict[str, list[tuple[int, dict[str, Any]]]] = field(default_factory=dict)
    results: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def add(self, position: int, message: Message) -> None:
        for block in message.content:
            if isinstance(block, ToolUseBlock):
                self.inputs.setdefault(block.id, []).append((position, block.input))
            elif isinstance(block, ToolResultBlock):
                self.results.setdefault(block.tool_use_id, []).append((position, block.content))

    def restore(self, position: int, line: dict[str, Any]) -> dict[str, Any]:
        """Put back what the writer left out because a message holds it: a call's input (the
        last tool_use before the event) and a result's content (the first tool_result after it:
        results join the conversation when the round's calls are done). Ids may repeat."""
        call_id = str(line.get("call_id"))
        kind = line.get("event")
        if kind == ev.ToolCallStarted.type and "input" not in line:
            before = [v for p, v in self.inputs.get(call_id, []) if p < position]
            return {**line, "input": before[-1] if before else {}}
        result = line.get("result")
        if kind == ev.ToolCallFinished.type and isinstance(result, dict):
            if "content" not in result:
                after = [v for p, v in self.results.get(call_id, []) if p > position]
                return {**line, "result": {**result, "content": after[0] if after else ""}}
        return line


def _event_classes() -> dict[str, type[ev.Event]]:
    """Every event type by its name (walked each load: a few dozen classes, and a type added
    later, by a plugin or a test, is found)."""
    found: dict[str, type[ev.Event]] = {}
    pending: list[type[ev.Event]] = [ev.Event]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls is not ev.Event:
            found.setdefault(cls.type, cls)
    return found


def decode_event(
    line: dict[str, Any], classes: dict[str, type[ev.Event]] | None = None
) -> ev.Event | None:
    """The event of an ``event`` line, or None for a type this version does not know.

    Events that carry a question (a future) are not rebuilt: there is nobody to answer them.
    """
    cls = (classes if classes is not None else _event_classes()).get(str(line.get("event")))
    if cls is None or any(f.default_factory is asyncio.Future for f in dataclasses.fields(cls)):
        return None
    value = _decode(cls, {k: v for k, v in line.items() if k not in ("type", "event")})
    return value if isinstance(value, ev.Event) else None


def _decode(hint: Any, value: Any) -> Any:
    """``value`` (plain JSON) as the type ``hint`` names: dataclasses, tuples, unions."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        members = typing.get_args(hint)
        if value is None:
            return None
        for member in members:
            if dataclasses.is_dataclass(member) and isinstance(value, dict):
                return _decode(member, value)
        return value
    if origin is tuple and isinstance(value, list):
        args = typing.get_args(hint)
        item = args[0] if args else Any
        return tuple(_decode(item, v) for v in value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        hints = _hints(hint)
        known = {
            f.name: _decode(hints.get(f.name, Any), value[f.name])
            for f in dataclasses.fields(hint)
            if f.init and f.name in value
        }
        return hint(**known)
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)
