"""Progress of tool calls whose arguments are still streaming in.

A large ``create_file`` streams its arguments for many seconds before the call can run. So the
loop reports a call as soon as it starts (its name), then how much has arrived and, when the
start of the partial JSON names it, the file it is about to touch — at most ``interval`` apart
per call, so a call in 11-byte fragments costs a handful of events a second, not one per fragment.
"""

from __future__ import annotations

import json
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_tui import events as ev
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.providers import base as pv
from agent_tui.tools.fs_util import human_size

PROGRESS_INTERVAL_S = 0.1
HEAD_CHARS = 4096  # the path is looked for only in the arguments' first characters
MAX_PATH_CHARS = 200

# "path": "…" as a JSON string (escapes allowed), and apply_patch's first file header.
_PATH = lazy_pattern(r'"path"\s*:\s*"((?:[^"\\]|\\.){1,400})"')
_TOOL_NAME = lazy_pattern(r"[A-Za-z0-9_.:-]{1,128}")
_PATCH_FILE = lazy_pattern(r"\*\*\* (?:Add|Update|Delete) File: ((?:[^\"\\]|\\[^n]){1,400})")


@dataclass
class _Call:
    """A tool call still streaming its arguments: their size so far, their head, the path they
    name."""

    call_id: str
    name: str
    size: int = 0
    head: list[str] = field(default_factory=list)
    head_size: int = 0
    path: str = ""
    last_sent: float = 0.0


def path_in(head: str) -> str:
    """The file a call's partial JSON arguments name near their start ('' if none is readable).

    A name with control or format characters (which could disguise it) is not shown at all.
    """
    for pattern in (_PATH(), _PATCH_FILE()):
        match = pattern.search(head)
        if match is None:
            continue
        try:
            path = str(json.loads(f'"{match.group(1)}"')).strip()
        except ValueError:
            continue
        if path and len(path) <= MAX_PATH_CHARS and not _hidden_characters(path):
            return path
    return ""


def shown_name(name: str) -> str:
    """A tool name as it may be printed: the model chose it, so anything unusual is escaped."""
    if _TOOL_NAME().fullmatch(name):
        return name
    return json.dumps(name[:100])  # ASCII only: control, bidi and other tricks show as \uXXXX


def _hidden_characters(text: str) -> bool:
    return any(unicodedata.category(char).startswith("C") for char in text)


class CallProgress:
    """Turns a round's provider events into throttled ``ToolCallStreaming`` events.

    Args:
        clock: seconds, monotonic (tests pass their own to step time).
        interval: the least time between two progress events of one call.
    """

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        interval: float = PROGRESS_INTERVAL_S,
    ) -> None:
        self._clock = clock
        self._interval = interval
        self._calls: dict[int, _Call] = {}

    def feed(self, event: pv.ProviderEvent) -> ev.ToolCallStreaming | None:
        """The progress event owed for ``event``, if any (the call's start always gets one)."""
        if isinstance(event, pv.ToolCallDelta):
            call = self._calls.get(event.index)
            if call is None:
                return None
            call.size += len(event.arguments)
            if call.head_size < HEAD_CHARS:
                call.head.append(event.arguments)
                call.head_size += len(event.arguments)
            if self._clock() - call.last_sent < self._interval:
                return None
            return self._report(call)
        if isinstance(event, pv.ToolCallStart):
            call = self._calls[event.index] = _Call(event.id, event.name)
            return self._report(call)
        return None

    def _report(self, call: _Call) -> ev.ToolCallStreaming:
        if not call.path and call.head:
            call.path = path_in("".join(call.head))
        call.last_sent = self._clock()
        return ev.ToolCallStreaming(call.call_id, call.name, call.size, call.path)


# What a streaming call is doing, by tool; others are "receiving" their input.
_VERBS = {"create_file": "writing", "apply_patch": "patching", "replace_string_in_file": "editing"}


def progress_message(event: ev.ToolCallStreaming) -> str:
    """One line for a streaming call: ``create_file: writing src/app.py … 12.0 KB``."""
    verb = _VERBS.get(event.name, "receiving")
    target = f" {event.path}" if event.path else ""
    size = f" {human_size(event.bytes_so_far)}" if event.bytes_so_far else ""
    return f"{shown_name(event.name)}: {verb}{target} …{size}"
