"""Writing a session as it happens: one JSON line per message or event.

``SessionWriter`` appends lines to one file (0600, created with its header on the first line
written); each line is a single ``write`` on an ``O_APPEND`` descriptor, so a crash loses at most
the line being written and appending never rewrites the file.

``SessionRecorder`` keeps the file in step with a ``Conversation``: the agent calls ``record``
with each event it yields (and ``sync`` when a turn ends). Messages are frozen, so the recorder
compares the conversation with what it wrote by identity: new messages are appended; a message
replaced at the tail (a merged user message, edited tool inputs, a turn undone) is written as a
``rewind`` to the common prefix followed by the new messages. Loading replays the same steps.

The session's totals live in two event lines (``agent/totals.py`` reads them back on resume):
each answer's ``usage`` line has the request's ``usage``, the ``model`` that answered, and the
session's ``total`` tokens and ``cost_usd`` so far (every run of it); each ``turn_finished`` line
has the ``lines_added`` / ``lines_removed`` of the turn's edits. Fields are only ever added, with
defaults: a reader ignores those it does not know, and a line without them reads as 0 (or "").
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from agent_tui import events as ev
from agent_tui.conversation import ELIDED, Conversation, Message, ToolResultBlock, ToolUseBlock
from agent_tui.state_files import private_fd, write_failed
from agent_tui.text_safety import escape_json, one_line

logger = logging.getLogger(__name__)

VERSION = 1
# ``events.ConversationCompacted`` (compaction's own event): its ``replaced`` messages became one
# summary message; known by its type or class name, so this module needs nothing else of it.
COMPACTED = "conversation_compacted"
TITLE_CHARS = 60  # a title is the first prompt's first line, cut to this (with "…")
NAME_CHARS = 100  # a name given by /rename, cut to this
# Events not written: the deltas repeat what the messages hold (the answer, the tool input as it
# streams, a terminal's output that its result holds), and a question's event is followed by its
# answer (ToolCallDecided, with the deciding step). Any other event type is written as it is.
SKIPPED_EVENTS = frozenset(
    {
        ev.TextDelta.type,
        ev.ThinkingDelta.type,
        ev.AssistantMessage.type,
        ev.ToolCallStreaming.type,
        ev.ToolOutputDelta.type,
        ev.ApprovalRequested.type,
    }
)


def dumps(value: dict[str, Any]) -> bytes:
    """One line: compact JSON with nothing a terminal would act on (``cat`` of the file is safe)."""
    text = escape_json(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    return (text + "\n").encode("utf-8")


def event_line(event: ev.Event) -> dict[str, Any] | None:
    """The line for ``event``, or None for the types not written (see SKIPPED_EVENTS).

    Any event dataclass is written by its ``type`` and fields (futures left out), so an event type
    added later is recorded without a change here. What a message already holds is not repeated:
    a call's input and its result's content are restored from the tool_use / tool_result blocks.
    """
    if event.type in SKIPPED_EVENTS:  # checked first: deltas come by the thousand
        return None
    if isinstance(event, ev.SubagentEvent):
        return None  # a sub-agent's run is not replayed; its answer is the run_agent result
    body = event.to_json()
    kind = body.pop("type")
    if isinstance(event, ev.ToolCallStarted):
        body.pop("input", None)
        if event.prepared is not None:
            # The confirmation (a diff, a command) was for the question; the card shows the result.
            body["prepared"] = {
                "invocation_message": event.prepared.invocation_message,
                "past_tense_message": event.prepared.past_tense_message,
            }
    elif isinstance(event, ev.ToolCallFinished):
        body["result"].pop("content", None)
    return {"type": "event", "event": kind, **body}


class SessionWriter:
    """Appends lines to one session file.

    Args:
        path: the file (created 0600 with the header when the first line is written).
        session_id: the session's id (the file's stem).
        workspace: the workspace's real path, for the header.
        model: the model's name, for the header.
        title: the title (the first prompt); ``set_title`` may give it until the file exists.
        exists: the file already has its header (a resumed session): lines are appended.
        name: the name given by ``/rename`` (it wins over the title wherever a session is named).
    """

    def __init__(
        self,
        path: Path,
        session_id: str,
        workspace: str,
        model: str,
        title: str = "",
        *,
        exists: bool = False,
        name: str = "",
    ) -> None:
        self.path = path
        self.id = session_id
        self.workspace = workspace
        self.model = model
        self.title = title
        self.name = name
        self._fd: int | None = None
        self._exists = exists
        self._created = False  # this writer made the file (so may remove it if left empty)
        self.failed = False  # a write failed once: the session goes on unsaved (logged)

    @property
    def started(self) -> bool:
        return self._exists or self._fd is not None

    def set_title(self, text: str) -> None:
        if not self.title:
            self.title = short_title(text)

    def rename(self, name: str) -> str:
        """Name the session ``name`` (spaces collapsed, capped): a ``meta`` line, the last of
        which wins; before the file exists the header carries it. Returns the name kept."""
        self.name = clean_name(name)
        if self.started:
            self.write({"type": "meta", "name": self.name})
        return self.name

    def write(self, line: dict[str, Any]) -> None:
        """Append one line (the header first, for a new file). Never raises: a full disk must
        not end the user's turn; the failure leaves one notice and writing stops. A line is
        written whole or not at all (a part written before the disk filled is cut off again)."""
        if self.failed:
            return
        try:
            if self._fd is None:
                self._open()
            assert self._fd is not None
            _write_whole(self._fd, dumps(line))
        except OSError as exc:
            self.failed = True
            self._drop_if_empty()
            logger.warning("cannot write session %s: %s; it is not saved from here", self.id, exc)
            write_failed("the session", exc, "the conversation goes on without being saved")

    def _drop_if_empty(self) -> None:
        """Remove a new session file that did not get even its header (nothing half-written)."""
        if self._fd is None:
            return
        try:
            empty = os.fstat(self._fd).st_size == 0
        except OSError:
            return
        self.close()
        if empty and self._created:
            self.path.unlink(missing_ok=True)

    def _open(self) -> None:
        self._created = not self._exists and not self.path.exists()
        self._fd = private_fd(self.path, append=True)
        if not self._exists:
            self._exists = True
            header = {
                "type": "session",
                "version": VERSION,
                "id": self.id,
                "workspace": self.workspace,
                "model": self.model,
                "started": time.time(),
                "title": self.title,
            }
            if self.name:
                header["name"] = self.name
            _write_whole(self._fd, dumps(header))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def short_title(text: str) -> str:
    """A session's title from its first prompt: the first line that is not blank, capped."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    title = one_line(first)
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def clean_name(name: str) -> str:
    """A name as kept: runs of spaces, tabs and newlines made one space, at most NAME_CHARS."""
    return " ".join(name.split())[:NAME_CHARS]


def _write_whole(fd: int, data: bytes) -> None:
    """Append ``data`` to ``fd`` (opened O_APPEND) whole, or cut the file back and raise."""
    size = os.fstat(fd).st_size
    try:
        written = os.write(fd, data)
        while written < len(data):  # a short write: the disk filled part-way
            written += os.write(fd, data[written:])
    except OSError:
        try:
            os.ftruncate(fd, size)  # the lines before stay readable; no torn last line
        except OSError:
            pass  # nothing more to do: the failure is reported by the caller
        raise


class SessionRecorder:
    """Keeps a session file in step with a conversation (see the module docstring).

    Args:
        writer: where lines go.
        written: the messages the file already holds (a resumed session's conversation).
    """

    def __init__(self, writer: SessionWriter, written: list[Message] | None = None) -> None:
        self.writer = writer
        self._written: list[Message] = list(written or [])
        self._state: dict[str, list[str]] = {}  # the state last written (``keep_state``)

    @property
    def session_id(self) -> str:
        return self.writer.id

    def written(self, messages: list[Message]) -> None:
        """The messages the file already holds (a resumed session's, once parsed)."""
        self._written = list(messages)

    def record(self, event: ev.Event, conversation: Conversation) -> None:
        """Write the conversation's new messages, then ``event`` (when its type is written)."""
        if isinstance(event, ev.TurnStarted):
            self.writer.set_title(event.text)
        if event.type == COMPACTED or type(event).__name__ == "ConversationCompacted":
            self._compacted(conversation, int(getattr(event, "replaced", -1)), event)
        else:
            self.sync(conversation)
        if isinstance(event, ev.CommandHandled) and getattr(event.action, "name", "") == "fork":
            return  # /fork leaves the original as it was: the copy is what goes on
        line = event_line(event)
        # A turn's start opens the file (it carries the prompt as typed); an event before any
        # turn (a local command's answer) does not make a session of its own.
        if line is not None and (self.writer.started or isinstance(event, ev.TurnStarted)):
            self.writer.write(line)

    def keep_state(self, state: dict[str, list[str]]) -> None:
        """Write the session's state (its extra roots, the tools tool_search loaded) as a
        ``state`` line when it differs from the last one written; the last line wins on load.
        Nothing before the file exists: the first turn's start writes it then."""
        if state == self._state or not self.writer.started or self.writer.failed:
            return
        self.writer.write({"type": "state", **state})
        self._state = state

    def state_written(self, state: dict[str, list[str]]) -> None:
        """The state the file already holds (a resumed session's): not written again."""
        self._state = state

    def sync(self, conversation: Conversation) -> None:
        """Append what the conversation gained since the last call (a rewind first if needed)."""
        messages = conversation.messages
        written = self._written
        if conversation.lightened:
            self._take_lightened(conversation)
        if not written and not messages:
            return
        if not self._is_extension(messages):
            keep = _common_prefix(written, messages)
            self.writer.write({"type": "rewind", "to": keep})
            del written[keep:]
        for message in messages[len(written) :]:
            self.writer.write({"type": "message", "message": message.to_dict()})
            written.append(message)

    def _take_lightened(self, conversation: Conversation) -> None:
        """Keep the lighter messages ``Conversation.lighten`` put in place of ones written, not
        the written ones: holding those would keep every output the requests let go (a 300-round
        turn of file reads: +23 MiB). The file keeps what it has (see ``_same``)."""
        written, messages = self._written, conversation.messages
        for index in conversation.lightened:
            if index < len(written) and index < len(messages):
                if _same_calls(written[index], messages[index]):
                    written[index] = messages[index]
        conversation.lightened.clear()

    def _is_extension(self, messages: list[Message]) -> bool:
        """O(1) check of the usual case: the conversation only grew since the last write."""
        written = self._written
        if len(written) > len(messages):
            return False
        if not written:
            return True
        return _same(written[-1], messages[len(written) - 1]) and _same(written[0], messages[0])

    def _compacted(self, conversation: Conversation, upto: int, event: ev.Event) -> None:
        """A compaction replaced ``messages[:upto]`` by a summary: write it as one line.

        Messages appended just before it (no event in between) are written first, so the
        ``compaction`` line applies to the same list on load as it did live.
        """
        messages = conversation.messages
        written = self._written
        head = messages[0] if messages else None
        # What followed the replaced messages: the same objects, except when the summary went in
        # front of the first kept user message (Conversation.compact), which then is rebuilt.
        kept = messages[1:]
        if head is not None and len(head.content) > 1:
            kept = [Message(head.role, list(head.content[1:])), *kept]
        already = len(written) - upto
        consistent = (
            0 <= upto <= len(written)
            and already <= len(kept)
            and all(a is b or a == b for a, b in zip(written[upto:], kept, strict=False))
        )
        if not consistent:
            self.sync(conversation)  # a rewind and the messages as they now are: still exact
            return
        for message in kept[already:]:
            self.writer.write({"type": "message", "message": message.to_dict()})
        summary = str(getattr(event, "summary", ""))
        self.writer.write({"type": "compaction", "upto": upto, "summary": summary})
        self._written = list(messages)
        conversation.lightened.clear()  # every message it holds is now the conversation's own

    def close(self) -> None:
        self.writer.close()


def _same(written: Message, now: Message) -> bool:
    """``now`` is the message written, or it with outputs a request left out replaced by the
    placeholder (agent/pruned_outputs.py lets them go from memory): the file keeps the output."""
    if written is now:
        return True
    if written.role != now.role or len(written.content) != len(now.content):
        return False
    return all(
        old is new
        or old == new
        or (
            isinstance(old, ToolResultBlock)
            and isinstance(new, ToolResultBlock)
            and new.content == ELIDED
            and new.tool_use_id == old.tool_use_id
        )
        for old, new in zip(written.content, now.content, strict=True)
    )


def _same_calls(written: Message, now: Message) -> bool:
    """``now`` has the same blocks as ``written``, its calls and results possibly lightened (the
    same ids: a call's id is unique, so a message from before a rewind never passes for it)."""
    if written is now:
        return True
    if written.role != now.role or len(written.content) != len(now.content):
        return False
    for old, new in zip(written.content, now.content, strict=True):
        if isinstance(old, ToolResultBlock) and isinstance(new, ToolResultBlock):
            if old.tool_use_id != new.tool_use_id:
                return False
        elif isinstance(old, ToolUseBlock) and isinstance(new, ToolUseBlock):
            if (old.id, old.name) != (new.id, new.name):
                return False
        elif old is not new and old != new:
            return False
    return True


def _common_prefix(a: list[Message], b: list[Message]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if not _same(x, y):
            break
        n += 1
    return n
