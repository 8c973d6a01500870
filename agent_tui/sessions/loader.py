"""Reading a session back: replay its lines in order (issue 12 §1-2).

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
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Union

from agent_tui import events as ev
from agent_tui.conversation import Conversation, Message, ToolResultBlock, ToolUseBlock

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MessageEntry:
    """A message appended at ``index`` of the conversation."""

    index: int
    message: Message


@dataclass(frozen=True)
class RewindEntry:
    to: int


Entry = MessageEntry | RewindEntry | ev.Event


@dataclass
class LoadedSession:
    """A session file read back.

    Attributes:
        header: the first line (id, workspace, model, started, title).
        conversation: the conversation as the next request would be built from it.
        entries: messages, rewinds and events in file order (for drawing the transcript).
        skipped: lines that could not be read (a torn last line counts here).
    """

    header: dict[str, Any]
    conversation: Conversation
    entries: list[Entry] = field(default_factory=list)
    skipped: int = 0

    @property
    def id(self) -> str:
        return str(self.header.get("id", ""))


class SessionFileError(ValueError):
    """The file is not a session (no header line)."""


def load(path: Path) -> LoadedSession:
    """Read a session file.

    Raises:
        OSError: it cannot be read.
        SessionFileError: its first line is not a session header.
    """
    lines = path.read_bytes().split(b"\n")
    try:
        header = json.loads(lines[0])
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("type") != "session":
        raise SessionFileError(f"{path.name} is not a session file")
    loaded = LoadedSession(header, Conversation())
    for number, raw in enumerate(lines[1:], start=2):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            _apply(loaded, line)
        except (ValueError, KeyError, TypeError) as exc:
            loaded.skipped += 1
            if number < len(lines) - 1 or raw.endswith(b"}"):  # not just a torn last line
                logger.warning("%s line %d skipped: %s", path.name, number, exc)
    return loaded


def _apply(loaded: LoadedSession, line: dict[str, Any]) -> None:
    conversation = loaded.conversation
    kind = line["type"]
    if kind == "message":
        message = Message.from_dict(line["message"])
        loaded.entries.append(MessageEntry(len(conversation.messages), message))
        conversation.append(message)
    elif kind == "rewind":
        to = int(line["to"])
        conversation.truncate(to)
        loaded.entries.append(RewindEntry(to))
    elif kind == "compaction":
        conversation.compact(int(line["upto"]), str(line["summary"]))
    elif kind == "event":
        event = decode_event(_restore_call_fields(line, conversation))
        if event is not None:
            loaded.entries.append(event)
    # other types: written by a newer version; skipped


def _restore_call_fields(line: dict[str, Any], conversation: Conversation) -> dict[str, Any]:
    """Put back what the writer left out because a message holds it: a call's input, a result's
    content (see ``writer.event_line``). Looked for from the end: the call is a recent one."""
    kind = line.get("event")
    if kind not in (ev.ToolCallStarted.type, ev.ToolCallFinished.type):
        return line
    call_id = line.get("call_id")
    for message in reversed(conversation.messages):
        for block in message.content:
            if isinstance(block, ToolUseBlock) and block.id == call_id and "input" not in line:
                return {**line, "input": block.input}
            if (
                isinstance(block, ToolResultBlock)
                and block.tool_use_id == call_id
                and isinstance(line.get("result"), dict)
                and "content" not in line["result"]
            ):
                return {**line, "result": {**line["result"], "content": block.content}}
    if kind == ev.ToolCallStarted.type:
        return {"input": {}, **line}
    if isinstance(line.get("result"), dict):  # its result never reached the conversation
        return {**line, "result": {"content": "", **line["result"]}}
    return line


@cache
def _event_classes() -> dict[str, type[ev.Event]]:
    found: dict[str, type[ev.Event]] = {}
    pending: list[type[ev.Event]] = [ev.Event]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls is not ev.Event:
            found.setdefault(cls.type, cls)
    return found


def decode_event(line: dict[str, Any]) -> ev.Event | None:
    """The event of an ``event`` line, or None for a type this version does not know.

    Events that carry a question (a future) are not rebuilt: there is nobody to answer them.
    """
    cls = _event_classes().get(str(line.get("event")))
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
