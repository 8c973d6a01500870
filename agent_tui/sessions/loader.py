"""Reading a session back: replay its lines in order.

``load`` only skims the file: ``event`` and ``message`` lines are kept by their place in it (a
message with its role and whether it is a prompt, read from the line's fixed start), ``rewind``
and ``compaction`` lines are parsed (they are small). That is all the first screen needs
(``sessions/timeline.py``); a drawn turn's lines are read back and decoded then
(``LoadedSession.drawable``), and the conversation itself is parsed afterwards, a chunk at a
time (``sessions/history.py``): ``message`` lines append, ``rewind`` truncates, ``compaction``
compacts, exactly as the live conversation changed. A torn last line (a crash mid-write) is
ignored; any other undecodable line is skipped with a warning, never fatal.
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
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple, Union

from agent_tui import events as ev
from agent_tui.conversation import (
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent_tui.safe_read import FileTooLarge, open_regular
from agent_tui.sessions.store import MAX_SESSION_BYTES

if TYPE_CHECKING:
    from agent_tui.sessions.history import History

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class MessageEntry:
    """A message appended at ``index`` of the conversation."""

    index: int
    message: Message


class MessageLine(NamedTuple):
    """A message line not parsed yet, by its place in the file (as ``RawEvent``): what the
    timeline needs of it is its index in the conversation, its role and whether it holds text
    the user typed (a user message with a text block; tool results alone are not a prompt).
    A tuple: made 10,000 times before the first paint, and smaller than a dataclass."""

    position: int
    offset: int
    length: int
    message_index: int  # in the conversation at this point of the file
    role: str
    prompt: bool


@dataclass(frozen=True)
class RewindEntry:
    """A rewind line: the conversation goes back to its first ``to`` messages."""

    to: int


@dataclass(frozen=True)
class CompactionEntry:
    """``messages[:upto]`` became one summary (the indexes after it moved down)."""

    upto: int
    summary: str = ""


class RawEvent(NamedTuple):
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
Line = MessageLine | RewindEntry | CompactionEntry | RawEvent  # what ``load`` keeps of a line
_EVENT_LINE = b'{"type":"event"'  # how writer.py starts an event line
_EVENT_KIND = b'{"type":"event","event":"'
_MESSAGE_ROLE = b'{"type":"message","message":{"role":"'  # and a message line (its to_dict)
# A text block's end (``TextBlock``'s last field). In a user message nothing else can hold these
# bytes unescaped: the other blocks' free text (results, image data) is inside JSON strings.
_TEXT_BLOCK_END = b'"type":"text"}'
KEPT_KINDS = frozenset({"turn_started", "turn_finished", "checkpoint_restored"})  # the timeline's
MAX_SAVED_ROOTS = 64  # extra roots a ``state`` line may restore
MAX_SAVED_TOOLS = 2000  # and tools tool_search loaded
MAX_STATE_TEXT = 4096  # characters of one of them (a path, a tool's name)
CHUNK_LINES = 500  # message lines parsed per json call: fast, and the parsed tree stays small


@dataclass
class LoadedSession:
    """A session file read back.

    Attributes:
        header: the first line (id, workspace, model, started, title).
        entries: messages, rewinds, compactions and events in file order, messages and events
            kept by their place in the file.
        skipped: lines that could not be read (a torn last line counts here).
        messages: how many messages the conversation has now (rewinds and compactions applied).
        history: the conversation, parsed from ``entries`` a chunk at a time.
    """

    header: dict[str, Any]
    path: Path | None = None  # where the events are read back from
    entries: list[Line] = field(default_factory=list)
    skipped: int = 0
    name: str = ""  # the last name given (``meta`` lines, or the header's); "": never named
    messages: int = 0
    history: History | None = None
    walked: object = None  # the timeline's walk of ``entries`` (sessions/timeline.standing)
    # The session's state as the last ``state`` line left it (writer.py, ``keep_state``): the
    # extra roots and the tools tool_search loaded, as written; the file may have been edited,
    # so whoever restores them checks each again (agent/saved_state.py).
    saved_roots: list[str] = field(default_factory=list)
    saved_tools: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # what resuming left out, to show the user

    @property
    def id(self) -> str:
        return str(self.header.get("id", ""))

    @property
    def label(self) -> str:
        """Its name, else its title."""
        return self.name or str(self.header.get("title", ""))

    @property
    def conversation(self) -> Conversation:
        """The conversation as the next request would be built from it (parsed now if the
        history was not parsed yet: ``history.complete()`` does it without blocking)."""
        return self.history.finish() if self.history is not None else Conversation()

    def drawable(self, start: int = 0, end: int | None = None) -> list[Entry]:
        """``entries[start:end]`` with their messages and events decoded.

        Decoding is the slow part of loading, so a long session decodes only what is drawn. A
        call's input and a result's content, left out of its event by the writer, are put back
        from the messages of the same range (a turn, or rounds of one: they hold both).
        """
        entries = self.entries[start:end]
        lines = self._lines_back([e for e in entries if isinstance(e, RawEvent | MessageLine)])
        calls, decoded = _CallBlocks(), dict[int, Message]()
        for entry in entries:
            if isinstance(entry, MessageLine) and entry.position in lines:
                message = self._message(entry.position, lines[entry.position])
                if message is not None:
                    decoded[entry.position] = message
                    calls.add(entry.position, message)
        classes = _event_classes()
        out: list[Entry] = []
        for entry in entries:
            if isinstance(entry, MessageLine):
                if entry.position in decoded:
                    out.append(MessageEntry(entry.message_index, decoded[entry.position]))
            elif not isinstance(entry, RawEvent):
                out.append(entry)
            elif (event := self._event(entry.position, lines, calls, classes)) is not None:
                out.append(event)
        return out

    def _message(self, position: int, raw: bytes) -> Message | None:
        try:
            return Message.from_dict(json.loads(raw)["message"])
        except (ValueError, KeyError, TypeError) as exc:
            logger.warning("session %s line %d skipped: %s", self.id, position, exc)
            return None

    def _event(
        self,
        position: int,
        lines: dict[int, bytes],
        calls: _CallBlocks,
        classes: dict[str, type[ev.Event]],
    ) -> ev.Event | None:
        if position not in lines:
            return None  # the file could not be read again (said once, in _lines_back)
        try:
            line = json.loads(lines[position])
            return decode_event(calls.restore(position, line), classes)
        except (ValueError, KeyError, TypeError) as exc:
            logger.warning("session %s line %d skipped: %s", self.id, position, exc)
            return None

    def _lines_back(self, kept: list[RawEvent | MessageLine]) -> dict[int, bytes]:
        """The lines of ``kept`` by number, read back in one read (a turn's are together).
        The file only grows while the session is open, so their offsets still hold."""
        lines = {e.position: e.raw for e in kept if isinstance(e, RawEvent) and e.raw}
        wanted = [e for e in kept if e.position not in lines]
        if not wanted or self.path is None:
            return lines
        try:
            with open_regular(self.path) as handle:
                lines.update(read_back(handle.fileno(), wanted))
        except OSError as exc:
            logger.warning("session %s: cannot read its events again: %s", self.id, exc)
        return lines


def read_back(fd: int, wanted: list[RawEvent] | list[MessageLine] | list[Any]) -> dict[int, bytes]:
    """The lines ``wanted`` (in file order) by number, in one read of the file open as ``fd``.

    Raises:
        OSError: it cannot be read.
    """
    if not wanted:
        return {}
    low = wanted[0].offset
    high = max(e.offset + e.length for e in wanted)
    block = os.pread(fd, high - low, low)
    return {e.position: block[e.offset - low : e.offset - low + e.length] for e in wanted}


class SessionFileError(ValueError):
    """The file is not a session (no header line)."""


def load(path: Path) -> LoadedSession:
    """Skim a session file: its lines kept by place, the conversation parsed later (``history``:
    ``loaded.conversation`` parses it at once, ``await loaded.history.complete()`` in chunks).

    The file is read line by line, so the whole file is never in memory at once, and stays
    open until the conversation is parsed (deleted meanwhile, it is still read whole).

    Raises:
        OSError: it cannot be read (or is not a regular file, or over MAX_SESSION_BYTES).
        SessionFileError: its first line is not a session header.
    """
    from agent_tui.sessions.history import History

    handle = open_regular(path)
    try:
        loaded = _skim(path, handle)
    except BaseException:
        handle.close()
        raise
    loaded.history = History(loaded, handle)
    return loaded


def _skim(path: Path, handle: BinaryIO) -> LoadedSession:
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
    loaded = LoadedSession(header, path, name=str(header.get("name", "")))
    roles: list[str] = []  # of the messages in the conversation at this point of the file
    offset, entries, kinds = len(first), loaded.entries, dict[bytes, str]()
    for number, raw in enumerate(handle, start=2):  # the hot loop of a resume: kept flat
        if offset > MAX_SESSION_BYTES:  # it grew while read
            raise FileTooLarge(path, offset, MAX_SESSION_BYTES)
        size = len(raw)
        if raw.startswith(_EVENT_LINE):
            kind = _event_kind(raw, kinds)
            kept = raw if kind in KEPT_KINDS else b""
            entries.append(RawEvent(number, offset, size, kind, kept))
        elif (role := _message_role(raw)) and raw.endswith(b"}\n"):
            prompt = role == "user" and _TEXT_BLOCK_END in raw
            entries.append(MessageLine(number, offset, size, len(roles), role, prompt))
            roles.append(role)
        else:
            _other_line(loaded, roles, number, offset, raw)
        offset += size
    loaded.messages = len(roles)
    return loaded


def _other_line(
    loaded: LoadedSession, roles: list[str], number: int, offset: int, raw: bytes
) -> None:
    """A line other than an event or a whole message as the writer writes them: parsed now."""
    if not raw.strip():
        return
    if not raw.rstrip().endswith(b"}"):  # torn (a crash mid-write), or not JSON at all
        loaded.skipped += 1
        if raw.endswith(b"\n"):
            logger.warning("%s line %d skipped: not a whole line", loaded.id, number)
        return
    try:
        _apply(loaded, roles, json.loads(raw), number, offset, len(raw))
    except (ValueError, KeyError, TypeError) as exc:
        loaded.skipped += 1
        logger.warning("%s line %d skipped: %s", loaded.id, number, exc)


def _message_role(raw: bytes) -> str:
    """A message line's role, read from its fixed start ("": not a message line as the writer
    writes them; such a line is parsed whole)."""
    if raw.startswith(_MESSAGE_ROLE + b'user"'):
        return "user"
    if raw.startswith(_MESSAGE_ROLE + b'assistant"'):
        return "assistant"
    return ""


def _event_kind(raw: bytes, known: dict[bytes, str]) -> str:
    """The event's type, read from the line's fixed start (writer.py writes it first);
    ``known``: the types met so far, each decoded once."""
    if not raw.startswith(_EVENT_KIND):
        return ""
    end = raw.find(b'"', len(_EVENT_KIND))
    if end < 0:
        return ""
    name = raw[len(_EVENT_KIND) : end]
    kind = known.get(name)
    if kind is None:
        kind = known[name] = sys.intern(name.decode("ascii", "replace"))
    return kind


def parse_all(lines: list[bytes]) -> Iterator[Any] | None:
    """Every line parsed in one call (a third of the time of one call per line), or None
    when one of them is not JSON: then each is parsed on its own."""
    lines = [raw for raw in lines if raw.strip()]
    try:
        values = json.loads(b"[" + b",".join(lines) + b"]")
    except ValueError:
        return None
    return iter(values) if isinstance(values, list) and len(values) == len(lines) else None


def _apply(
    loaded: LoadedSession,
    roles: list[str],
    line: dict[str, Any],
    position: int,
    offset: int,
    length: int,
) -> None:
    """A line other than an event or a message as the writer starts them."""
    kind = line["type"]
    if kind == "message":  # written some other way: parsed twice, now and with the history
        message = Message.from_dict(line["message"])
        prompt = message.role == "user" and any(isinstance(b, TextBlock) for b in message.content)
        entry = MessageLine(position, offset, length, len(roles), message.role, prompt)
        loaded.entries.append(entry)
        roles.append(message.role)
    elif kind == "rewind":
        to = int(line["to"])
        del roles[max(to, 0) :]
        loaded.entries.append(RewindEntry(to))
    elif kind == "compaction":
        upto, summary = int(line["upto"]), str(line["summary"])
        if 0 < upto < len(roles):  # as Conversation.compact: a user message takes the summary
            kept = roles[upto:]
            roles[:] = kept if kept[0] == "user" else ["user", *kept]
        loaded.entries.append(CompactionEntry(upto, summary))
    elif kind == "meta":
        loaded.name = str(line.get("name", loaded.name))
    elif kind == "state":
        loaded.saved_roots = _strings(line.get("extra_roots"), MAX_SAVED_ROOTS)
        loaded.saved_tools = _strings(line.get("tools_loaded"), MAX_SAVED_TOOLS)
    # other types: written by a newer version; skipped


def _strings(value: object, most: int) -> list[str]:
    """A ``state`` line's list as kept: strings only (nothing else of an edited file), each at
    most MAX_STATE_TEXT characters, at most ``most`` of them."""
    if not isinstance(value, list):
        return []
    kept = [item for item in value if isinstance(item, str) and 0 < len(item) <= MAX_STATE_TEXT]
    return kept[:most]


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
