"""The turns of a saved session as the conversation now stands: one pure function of its lines.

The file is a log: a turn rewound by ``/rewind`` (or cleared by ``/clear``) is still in it, an
``/undo`` is a ``checkpoint_restored`` line after the turn it undid, and a turn the app was closed
in has no ``turn_finished``. :func:`turns_as_they_stand` reads that log into the turns to show:

- a ``rewind`` line written outside a turn (``/rewind``, ``/clear``: a command's, after its
  ``command_handled``) removes the turns whose prompt it cut off, and those started after them;
  one written inside a turn is the turn rewriting its own tail (an unanswered turn, merged
  messages) and removes nothing;
- ``checkpoint_restored`` marks the turns it names (by their prompt's message index) ``undone``;
- a turn with no ``turn_finished`` before the next turn or command is ``interrupted``.

Only event lines that decide this are parsed (a turn's start and end, an undo), and no message
(``load`` read their role from the line's start): a 10,000-message session is laid out before its
conversation is parsed. The app walks the log once per load (:func:`standing`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_tui.events import TodoUpdated
from agent_tui.sessions.loader import (
    Line,
    LoadedSession,
    MessageLine,
    RawEvent,
    RewindEntry,
)
from agent_tui.tools.todo import shift_counts

NO_TURN = -1


@dataclass
class TurnSpan:
    """One turn: ``entries[start:end]`` (its events, and the commands' up to the next turn).

    Attributes:
        prompt: the text as typed.
        calls: tool calls started in it.
        answer: the first line of its answer (its ``turn_finished``'s; "" when it has none).
        finished: its ``turn_finished`` was written (False: the app was closed during it).
        undone: ``/undo`` (or ``/rewind`` of the code) put back the files it changed.
        prompt_index: its prompt's index in the conversation as it stands (-1: compacted away).
        lines_added, lines_removed: what its edits changed (its ``turn_finished``'s; 0 in a
            file written before they were counted).
    """

    start: int
    end: int
    prompt: str
    calls: int = 0
    answer: str = ""
    finished: bool = False
    undone: bool = False
    prompt_index: int = -1
    lines_added: int = 0
    lines_removed: int = 0

    @property
    def interrupted(self) -> bool:
        return not self.finished


@dataclass
class _Walk:
    """The state of the walk: the turns so far and, per message now in the conversation,
    its role and the turn it is the prompt of (NO_TURN for any other message)."""

    turns: list[TurnSpan] = field(default_factory=list)
    slots: list[tuple[str, int]] = field(default_factory=list)
    dropped: set[int] = field(default_factory=set)
    current: int | None = None  # the turn running at this point of the file
    prompted: bool = False  # the current turn's prompt message was seen
    parsed: dict[int, dict[str, object]] = field(default_factory=dict)  # the kept event lines
    # Each todo list sent: (messages in the conversation then, its line); a rewind drops those
    # it cut off, as /rewind does live (tools/todo.py).
    todos: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class Standing:
    """The session as it stands: the turns to show and the prompts still in the conversation
    as typed, by their message index."""

    turns: list[TurnSpan]
    prompts: dict[int, str]
    todos: list[tuple[int, int]] = field(default_factory=list)  # (messages then, line) per list


def standing(loaded: LoadedSession) -> Standing:
    """``loaded`` as it stands, walked once (kept on it: its entries do not change)."""
    if not isinstance(loaded.walked, Standing):
        loaded.walked = _stand(loaded.entries)
    return loaded.walked


def turns_as_they_stand(lines: Sequence[Line]) -> list[TurnSpan]:
    """The turns to show of a session whose entries are ``lines`` (``LoadedSession.entries``)."""
    return _stand(lines).turns


def prompts_as_typed(lines: Sequence[Line]) -> dict[int, str]:
    """The prompt of each turn still in the conversation, as typed, by its message index."""
    return _stand(lines).prompts


def _stand(lines: Sequence[Line]) -> Standing:
    walk = _walk(lines)
    for turn, following in zip(walk.turns, walk.turns[1:], strict=False):
        turn.end = following.start
    if walk.turns:
        walk.turns[-1].end = len(lines)
    prompts = {
        index: walk.turns[owner].prompt
        for index, (_, owner) in enumerate(walk.slots)
        if owner != NO_TURN and owner not in walk.dropped
    }
    for index, (_, owner) in enumerate(walk.slots):
        if owner != NO_TURN:
            walk.turns[owner].prompt_index = index
    turns = [t for i, t in enumerate(walk.turns) if i not in walk.dropped]
    return Standing(turns, prompts, walk.todos)


# The kinds of event that decide how the turns stand (the others are passed over).
_WALKED = frozenset(
    {
        "turn_started",
        "tool_call_started",
        "turn_finished",
        "command_handled",
        "checkpoint_restored",
        TodoUpdated.type,  # "plan"
    }
)


def _event(walk: _Walk, n: int, line: RawEvent) -> None:
    kind = line.kind
    if kind == "turn_started":
        walk.turns.append(TurnSpan(n, n + 1, str(walk.parsed.get(n, {}).get("text", ""))))
        walk.current, walk.prompted = len(walk.turns) - 1, False
    elif kind == "tool_call_started" and walk.turns:
        walk.turns[-1].calls += 1
    elif kind == "turn_finished":
        if walk.current is not None:
            turn = walk.turns[walk.current]
            turn.finished = True
            finished = walk.parsed.get(n, {})
            turn.answer = _first_line(str(finished.get("text", "")))
            turn.lines_added = _count(finished.get("lines_added"))
            turn.lines_removed = _count(finished.get("lines_removed"))
        walk.current = None
    elif kind == "command_handled":
        walk.current = None  # a command between turns: its rewind is the user's
    elif kind == TodoUpdated.type:
        walk.todos.append((len(walk.slots), n))
    elif kind == "checkpoint_restored":
        named = walk.parsed.get(n, {}).get("turns")
        for index in named if isinstance(named, list) else ():
            if isinstance(index, int) and 0 <= index < len(walk.slots):
                owner = walk.slots[index][1]
                if owner != NO_TURN:
                    walk.turns[owner].undone = True


def _message(walk: _Walk, entry: MessageLine) -> None:
    owner = NO_TURN
    if walk.current is not None and entry.prompt and not walk.prompted:  # not tool results
        owner, walk.prompted = walk.current, True
    if entry.message_index < len(walk.slots):  # after a rewind written inside a turn
        del walk.slots[entry.message_index :]
    walk.slots.append((entry.role, owner))


def _rewind(walk: _Walk, to: int) -> None:
    if walk.current is None:  # the user's: the turns whose prompts it cut off go
        cut = [owner for _, owner in walk.slots[to:] if owner != NO_TURN]
        first = min(cut) if cut else None
        if to == 0:
            first = 0
        if first is not None:
            walk.dropped.update(range(first, len(walk.turns)))
        walk.todos[:] = [(count, n) for count, n in walk.todos if count <= to]
    del walk.slots[to:]


def _compaction(walk: _Walk, upto: int) -> None:
    """As ``Conversation.compact``: a kept user message takes the summary in front."""
    if not 0 < upto < len(walk.slots):
        return
    kept = walk.slots[upto:]
    merged = kept[0][0] == "user"
    walk.slots[:] = kept if merged else [("user", NO_TURN), *kept]
    counts = shift_counts([count for count, _ in walk.todos], upto, merged)
    walk.todos[:] = [(count, n) for count, (_, n) in zip(counts, walk.todos, strict=True)]


def _parse_kept(lines: Sequence[Line]) -> dict[int, dict[str, object]]:
    """The event lines the walk reads (kept with their bytes), by their place in ``lines``:
    parsed in one call (5,000 for 10,000 messages), else one by one (one of them is bad)."""
    kept = [(n, e.raw) for n, e in enumerate(lines) if isinstance(e, RawEvent) and e.raw]
    try:
        values = json.loads(b"[" + b",".join(raw for _, raw in kept) + b"]")
    except ValueError:
        values = None
    if not isinstance(values, list) or len(values) != len(kept):  # a line held two values
        values = [_parsed(raw) for _, raw in kept]
    return {n: v for (n, _), v in zip(kept, values, strict=True) if isinstance(v, dict)}


def _parsed(raw: bytes) -> object:
    try:
        return json.loads(raw)
    except ValueError:
        return {}


def _count(value: object) -> int:
    """A line count from the file (hostile): a non-negative int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def round_starts(lines: Sequence[Line], start: int, end: int) -> list[int]:
    """Where each tool round of ``lines[start:end]`` begins: the answer message written just
    before its first ``tool_call_started`` (calls of one round stay together: their results
    may come after the next call's start)."""
    found: list[int] = []
    for n in range(start, end):
        line = lines[n]
        if not (isinstance(line, RawEvent) and line.kind == "tool_call_started"):
            continue
        if found and not isinstance(lines[n - 1], MessageLine):
            continue  # another call of the same round
        begin = n
        while begin - 1 > start and isinstance(lines[begin - 1], MessageLine):
            begin -= 1
        found.append(begin)
    return found


def calls_in(lines: Sequence[Line], start: int, end: int) -> int:
    """How many tool calls start in ``lines[start:end]``."""
    return sum(
        1
        for n in range(start, end)
        if isinstance(r := lines[n], RawEvent) and r.kind == "tool_call_started"
    )


def _walk(lines: Sequence[Line]) -> _Walk:
    walk = _Walk(parsed=_parse_kept(lines))
    for n, line in enumerate(lines):  # 25,000 lines for 10,000 messages: kept cheap
        if isinstance(line, RawEvent):
            if line.kind in _WALKED:
                _event(walk, n, line)
        elif isinstance(line, MessageLine):
            _message(walk, line)
        elif isinstance(line, RewindEntry):
            _rewind(walk, line.to)
        else:
            _compaction(walk, line.upto)
    return walk
