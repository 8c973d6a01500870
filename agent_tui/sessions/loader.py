"""Reading a session back: replay its lines in order.

``message`` lines append, ``rewind`` truncates, ``compaction`` compacts, exactly as the live
conversation changed; ``event`` lines are decoded back into ``events.py`` objects for drawing the
transcript again. A torn last line (a crash mid-write) is ignored; any other undecodable line is
skipped with a warning, never fatal.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Union

from agent_tui import events as ev
from agent_tui.conversation import Conversation, Message, ToolResultBlock, ToolUseBlock
from agent_tui.safe_read import read_bytes
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


@dataclass(frozen=True)
class RawEvent:
    """An event line not decoded yet (most are never needed: only the turns drawn are)."""

    position: int
    raw: bytes

    @property
    def kind(self) -> str:
        """The event's type, read from the line's fixed start (writer.py writes it first)."""
        if not self.raw.startswith(_EVENT_KIND):
            return ""
        end = self.raw.find(b'"', len(_EVENT_KIND))
        return self.raw[len(_EVENT_KIND) : end].decode("ascii", "replace") if end > 0 else ""

    @property
    def starts_turn(self) -> bool:
        return self.raw.startswith(_TURN_STARTED)


Entry = MessageEntry | RewindEntry | CompactionEntry | ev.Event
_EVENT_LINE = b'{"type":"event"'  # how writer.py starts an event line
_EVENT_KIND = b'{"type":"event","event":"'
_TURN_STARTED = _EVENT_KIND + b'turn_started"'


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
    entries: list[MessageEntry | RewindEntry | CompactionEntry | RawEvent] = field(
        default_factory=list
    )
    skipped: int = 0
    _calls: _CallBlocks = field(default_factory=lambda: _CallBlocks())

    @property
    def id(self) -> str:
        return str(self.header.get("id", ""))

    def drawable(self, start: int = 0, end: int | None = None) -> list[Entry]:
        """``entries[start:end]`` with their events decoded.

        Decoding is the slow part of loading, so a long session decodes only what is drawn.
        """
        entries = self.entries[start:end]
        classes = _event_classes()
        out: list[Entry] = []
        for entry in entries:
            if not isinstance(entry, RawEvent):
                out.append(entry)
                continue
            try:
                line = json.loads(entry.raw)
                event = decode_event(self._calls.restore(entry.position, line), classes)
            except (ValueError, KeyError, TypeError) as exc:
                logger.warning("session %s line %d skipped: %s", self.id, entry.position, exc)
                continue
            if event is not None:
                out.append(event)
        return out


class SessionFileError(ValueError):
    """The file is not a session (no header line)."""


def load(path: Path) -> LoadedSession:
    """Read a session file: the conversation now, the events kept undecoded for ``drawable``.

    Raises:
        OSError: it cannot be read (or is not a regular file, or over MAX_SESSION_BYTES).
        SessionFileError: its first line is not a session header.
    """
    lines = read_bytes(path, MAX_SESSION_BYTES).split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("type") != "session":
        raise SessionFileError(f"{path.name} is not a session file")
    loaded = LoadedSession(header, Conversation())
    numbered = [(n, raw) for n, raw in enumerate(lines[1:], start=2) if raw.strip()]
    parsed = _parse_all([raw for _, raw in numbered if not raw.startswith(_EVENT_LINE)])
    for number, raw in numbered:
        if raw.startswith(_EVENT_LINE):
            loaded.entries.append(RawEvent(number, raw))
            continue
        try:
            line = next(parsed) if parsed is not None else json.loads(raw)
            _apply(loaded, line, loaded._calls, number)
        except (ValueError, KeyError, TypeError) as exc:
            loaded.skipped += 1
            if number < len(lines) - 1 or raw.endswith(b"}"):  # not just a torn last line
                logger.warning("%s line %d skipped: %s", path.name, number, exc)
    return loaded


def _parse_all(lines: list[bytes]) -> Iterator[Any] | None:
    """Every line parsed in one call (a third of the time of one call per line), or None
    when one of them is not JSON (a torn last line): then each is parsed on its own."""
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
