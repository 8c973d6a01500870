"""A saved session written out for people: Markdown, one HTML file, or JSON (``/export``,
``agent-tui export``).

The session is read as it stands (``timeline.turns_as_they_stand``): rewound turns are left out,
an undone turn and an interrupted call are said so. Each turn is its prompt, the answers' text
and the tool calls, a call with its input, its diff or output folded (``<details>``). Every
string from the file goes through ``text_safety.visible`` (the export may be ``cat``-ed); HTML
escapes it as well (``export_html.py``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent_tui import events as ev
from agent_tui.conversation import TextBlock
from agent_tui.sessions.loader import LoadedSession, MessageEntry
from agent_tui.sessions.timeline import TurnSpan, turns_as_they_stand
from agent_tui.text_safety import one_line, visible

FORMATS = ("md", "html", "json")
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_CODE_SPAN = re.compile(r"(`+)(?:.*?)\1")
UNDONE = "The file changes of this turn were undone (/undo)."
INTERRUPTED = "Interrupted: the app was closed during this turn."


@dataclass
class Call:
    """One tool call: ``status`` is "done", "error", "undone" (an edit /undo put back),
    "interrupted" or "no result"."""

    name: str
    title: str
    input: dict[str, Any]
    output: str = ""
    diff: str = ""
    status: str = "no result"
    kind: str = ""


@dataclass
class Turn:
    """A turn as it stands: the prompt, then answers (str) and calls in the order they came."""

    prompt: str
    parts: list[str | Call] = field(default_factory=list)
    undone: bool = False
    interrupted: bool = False


@dataclass
class Transcript:
    """What an export holds: the session's metadata and its turns."""

    id: str
    name: str
    title: str
    workspace: str
    model: str
    started: float
    turns: list[Turn]

    @property
    def label(self) -> str:
        return self.name or self.title or self.id


def transcript(loaded: LoadedSession) -> Transcript:
    """The turns of ``loaded`` as they stand, with their calls' inputs and results."""
    header = loaded.header
    started = header.get("started")
    return Transcript(
        id=loaded.id,
        name=loaded.name,
        title=str(header.get("title", "")),
        workspace=str(header.get("workspace", "")),
        model=str(header.get("model", "")),
        started=float(started) if isinstance(started, int | float) else 0.0,
        turns=[_turn(loaded, span) for span in turns_as_they_stand(loaded.entries)],
    )


def _turn(loaded: LoadedSession, span: TurnSpan) -> Turn:
    turn = Turn(span.prompt, undone=span.undone, interrupted=span.interrupted)
    calls: dict[str, Call] = {}
    for entry in loaded.drawable(span.start, span.end):
        match entry:
            case MessageEntry(message=message) if message.role == "assistant":
                text = "\n\n".join(
                    b.text for b in message.content if isinstance(b, TextBlock) and b.text.strip()
                )
                if text:
                    turn.parts.append(text)
            case ev.ToolCallStarted():
                title = entry.prepared.invocation_message if entry.prepared else entry.name
                call = Call(entry.name, title or entry.name, dict(entry.input), kind=entry.kind)
                if span.interrupted:
                    call.status = "interrupted"
                calls[entry.call_id] = call
                turn.parts.append(call)
            case ev.ToolCallFinished() if entry.call_id in calls:
                _finish(calls[entry.call_id], entry, span.undone)
    return turn


def _finish(call: Call, finished: ev.ToolCallFinished, undone: bool) -> None:
    result = finished.result
    call.status = "error" if result.is_error else "done"
    if undone and call.kind == "edit" and not result.is_error:
        call.status = "undone"
    call.title = finished.past_tense_message or call.title
    call.output = result.content
    if result.display and result.display != result.content:
        call.diff = result.display


def to_json(loaded: LoadedSession) -> str:
    """The messages as the conversation stands and the session's metadata, as JSON."""
    header = loaded.header
    body = {
        "id": loaded.id,
        "name": loaded.name,
        "title": header.get("title", ""),
        "workspace": header.get("workspace", ""),
        "model": header.get("model", ""),
        "started": header.get("started"),
        "forked_from": header.get("forked_from"),
        "messages": [m.to_dict() for m in loaded.conversation.messages],
    }
    return json.dumps(body, ensure_ascii=False, indent=1) + "\n"


def _fence(text: str, info: str = "") -> str:
    """``text`` in a code fence longer than any run of backticks inside it."""
    longest, run = 0, 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.rstrip(chr(10))}\n{ticks}"


def call_input(call: Call) -> str:
    return json.dumps(call.input, ensure_ascii=False, indent=1)


def _html_text(text: str) -> str:
    """One-line text for a ``<summary>`` (raw HTML in Markdown): visible and escaped."""
    from html import escape

    return escape(one_line(text)[:200], quote=True)


def _md_call(call: Call) -> list[str]:
    status = "" if call.status == "done" else f" ({call.status})"
    out = ["<details>", f"<summary>{_html_text(call.title)}{_html_text(status)}</summary>", ""]
    out += ["Input:", "", _fence(visible(call_input(call)), "json"), ""]
    if call.diff:
        out += [_fence(visible(call.diff), "diff"), ""]
    if call.output:
        out += ["Output:", "", _fence(visible(call.output)), ""]
    return [*out, "</details>", ""]


def inert_html(text: str) -> str:
    """Markdown ``text`` whose raw HTML is shown, not obeyed (``<`` as ``&lt;`` outside code):
    an answer's ``</details>`` or ``<script>`` must not change the export around it."""
    out, fence = [], ""
    for line in text.split("\n"):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1).startswith(fence):
                fence = ""
        elif opened:
            fence = opened.group(1)
        else:
            line = _outside_code_spans(line)
        out.append(line)
    return "\n".join(out)


def _outside_code_spans(line: str) -> str:
    pieces, done = [], 0
    for span in _CODE_SPAN.finditer(line):
        pieces += [line[done : span.start()].replace("<", "&lt;"), span.group(0)]
        done = span.end()
    return "".join([*pieces, line[done:].replace("<", "&lt;")])


def to_markdown(loaded: LoadedSession) -> str:
    """The session as Markdown: a heading per turn, calls folded in ``<details>``."""
    script = transcript(loaded)
    out = [
        f"# {one_line(script.label)}",
        "",
        f"Session `{script.id}` · model `{one_line(script.model)}`",
        "",
    ]
    for number, turn in enumerate(script.turns, start=1):
        out += [f"## {number}. You", "", _fence(visible(turn.prompt)), ""]
        for part in turn.parts:
            if isinstance(part, Call):
                out += _md_call(part)
            else:
                out += ["**Assistant:**", "", inert_html(visible(part)), ""]
        if turn.undone:
            out += [f"> {UNDONE}", ""]
        if turn.interrupted:
            out += [f"> {INTERRUPTED}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def render(loaded: LoadedSession, fmt: str) -> str:
    """``loaded`` in the format ``fmt`` (one of FORMATS)."""
    if fmt == "json":
        return to_json(loaded)
    if fmt == "html":
        from agent_tui.sessions.export_html import to_html

        return to_html(loaded)
    return to_markdown(loaded)
