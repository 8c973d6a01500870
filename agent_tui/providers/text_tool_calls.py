"""Tool calls that a model wrote as text instead of sending them as structured calls.

Small local models (Qwen2.5-Coder on llama.cpp without a tool-call template, and others) answer
with the call in their content: a fenced ```` ```json {"name": …, "arguments": …} ``` ```` block,
bare JSON, or Hermes/Qwen ``<tool_call>{…}</tool_call>`` tags, possibly several. A reply counts
as calls only when *all* of its text is such calls (whitespace between them aside) and every name
is a tool that was offered for this request: the text is the model's, and may be written to
deceive, so a call to anything else, or a call hidden after prose, is never made from it.

:func:`parse_text_calls` decides; :class:`TextCallGate` holds a streaming reply back while it
could still turn out to be a call, so the raw JSON is not shown as an answer first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from agent_tui.lazy_regex import lazy_pattern
from agent_tui.providers.call_repair import STRAY_FENCE, loads_lenient

# Hosts whose models send structured calls: their text is never read as a call under "auto".
STRUCTURED_HOSTS = ("api.anthropic.com", "api.openai.com")
FENCE_LANGS = ("", "json", "tool_call", "tool_code")  # the info strings of a fenced call
OPEN_TAG, CLOSE_TAG = "<tool_call>", "</tool_call>"
MAX_CALLS = 16  # more calls than this in one reply is not a reply we act on
_CALL_KEYS = {"name", "arguments", "parameters", "id", "type"}
_FENCE = lazy_pattern(r"```[ \t]*([A-Za-z_]*)[ \t]*\r?\n(.*?)```", re.DOTALL)
_FENCE_OPEN = lazy_pattern(r"```[ \t]*([A-Za-z_]*)[ \t]*\r?\n")
_FENCE_CLOSE = lazy_pattern(r"\s*```")
_NAME = lazy_pattern(r"""["']name["']\s*:\s*["']([^"'\\]{1,64})["']""")
_NAME_KEY = re.compile(r"""["']name["']""")
_ARGUMENTS_KEY = lazy_pattern(r"""["'](?:arguments|parameters)["']""")


@dataclass(frozen=True)
class TextCall:
    """One call found in the text: ``arguments`` is the JSON object as text."""

    name: str
    arguments: str
    repaired: str = ""  # what was repaired to read it (call_repair.py); "" when it was exact


@dataclass(frozen=True)
class TextCalls:
    """What a reply's text holds: calls to offered tools, or a failed attempt at one.

    ``problem`` is set when the text looks like a call but cannot be made (a tool that was not
    offered, arguments that do not parse); ``calls`` then holds nothing.
    """

    calls: tuple[TextCall, ...] = ()
    problem: str = ""
    attempted_name: str = field(default="")


def text_calls_enabled(setting: str, base_url: str) -> bool:
    """Whether ``[model] text_tool_calls`` reads calls from text for this endpoint.

    Args:
        setting: ``"auto"`` (on except for the hosted APIs in :data:`STRUCTURED_HOSTS`) or ``"off"``.
        base_url: the model's endpoint.
    """
    if setting == "off":
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    return host not in STRUCTURED_HOSTS


Segment = tuple[str, str, str]  # (kind, body, what was repaired to find it)
UNCLOSED_FENCE = "an unclosed ``` fence was read to the end"
TEMPLATE_MARKUP = "the chat template's markup around it was removed"
# A chat template's own tokens that a model sometimes writes around its call (ChatML: Qwen).
TEMPLATE_TOKENS = ("<|im_start|>assistant", "<|im_end|>", "<|endoftext|>")
_TEMPLATE_TOKEN = lazy_pattern("|".join(re.escape(token) for token in TEMPLATE_TOKENS))


def _segments(text: str) -> list[Segment] | None:
    """Split the whole text into (kind, body, repair) segments; None when anything else is there.

    kind is ``"tag"`` (inside ``<tool_call>``), ``"fence"``, ``"bare"`` or ``"junk"`` (a stray
    fence or a template token: no call, but not prose either).
    """
    out: list[Segment] = []
    decoder = json.JSONDecoder()
    pos, end = 0, len(text)
    while True:
        while pos < end and text[pos].isspace():
            pos += 1
        if pos >= end:
            return out
        if len(out) >= MAX_CALLS:
            return None
        step = _segment_at(text, pos, decoder)
        if step is None:
            return None
        segment, pos = step
        out.append(segment)


def _segment_at(text: str, pos: int, decoder: json.JSONDecoder) -> tuple[Segment, int] | None:
    """The segment starting at ``pos`` and where the next one starts; None at prose."""
    end = len(text)
    if text.startswith(OPEN_TAG, pos):
        start = pos + len(OPEN_TAG)
        close = text.find(CLOSE_TAG, start)
        # Qwen sometimes stops before writing the closing tag of its last call.
        stop = end if close < 0 else close
        return ("tag", text[start:stop], ""), end if close < 0 else close + len(CLOSE_TAG)
    if (token := _TEMPLATE_TOKEN().match(text, pos)) is not None:
        return ("junk", "", TEMPLATE_MARKUP), token.end()
    if text.startswith("```", pos):
        return _fence_segment(text, pos, decoder)
    if text[pos] == "{":
        try:
            _, stop = decoder.raw_decode(text, pos)
        except ValueError:
            return ("bare", text[pos:], ""), end  # judged (and repaired or refused) by _one
        return ("bare", text[pos:stop], ""), stop
    return None


def _fence_segment(text: str, pos: int, decoder: json.JSONDecoder) -> tuple[Segment, int] | None:
    """A fenced block at ``pos``, or a fence with nothing after it (stray), or None."""
    if not text[pos + 3 :].strip():
        return ("junk", "", STRAY_FENCE), len(text)
    fenced = _fenced_json(text, pos, decoder)
    if fenced is not None:
        return ("fence", fenced[0], fenced[2]), fenced[1]
    fence = _FENCE().match(text, pos)
    if fence is not None:
        if fence.group(1).lower() not in FENCE_LANGS:
            return None
        return ("fence", fence.group(2), ""), fence.end()
    opening = _FENCE_OPEN().match(text, pos)  # never closed: the model stopped after its call
    if opening is None or opening.group(1).lower() not in FENCE_LANGS:
        return None
    return ("fence", text[opening.end() :], UNCLOSED_FENCE), len(text)


def _fenced_json(text: str, pos: int, decoder: json.JSONDecoder) -> tuple[str, int, str] | None:
    """A fenced block holding one JSON value, read as JSON so that a ```` ``` ```` inside one of
    its strings (a Markdown file's content) does not end the block; None when it is not that.
    A block the model left unclosed at the end of its reply is read to the end."""
    opening = _FENCE_OPEN().match(text, pos)
    if opening is None or opening.group(1).lower() not in FENCE_LANGS:
        return None
    start = opening.end()
    while start < len(text) and text[start].isspace():
        start += 1
    try:
        _, stop = decoder.raw_decode(text, start)
    except ValueError:
        return None
    closing = _FENCE_CLOSE().match(text, stop)
    if closing is not None:
        return text[start:stop], closing.end(), ""
    if not text[stop:].strip():
        return text[start:stop], len(text), UNCLOSED_FENCE
    return None


def _call_object(value: Any) -> dict[str, Any] | None:
    """The call in a parsed JSON value (``{"name", "arguments"}``, also ``parameters`` and the
    ``{"type": "function", "function": {...}}`` wrapping), or None when it is not call-shaped."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    if not ({"arguments", "parameters"} & set(value)) or set(value) - _CALL_KEYS:
        return None
    return value


def looks_like_call(body: str) -> bool:
    """Whether ``body`` has a call's keys (a name and its arguments), in either quotes."""
    return _NAME_KEY.search(body) is not None and _ARGUMENTS_KEY().search(body) is not None


def _one(kind: str, body: str, offered: frozenset[str]) -> TextCall | TextCalls | None:
    """One segment: a call, a failed attempt (TextCalls with a problem), or None (not a call)."""
    try:
        read = loads_lenient(body)
    except ValueError:
        if kind == "tag" or looks_like_call(body):
            found = _NAME().search(body)
            name = found.group(1) if found else ""
            return TextCalls(problem="its arguments are not valid JSON", attempted_name=name)
        return None
    call = _call_object(read.value)
    if call is None:
        if kind == "tag":
            return TextCalls(problem="it is not a JSON object with name and arguments")
        return None
    name = call["name"]
    if name not in offered:
        return TextCalls(problem=f"no tool named {name[:64]!r} was offered", attempted_name=name)
    arguments = _arguments_of(call)
    if isinstance(arguments, str):
        return TextCalls(problem=arguments, attempted_name=name)
    value, repaired = arguments
    notes = ", ".join(filter(None, (read.repair, repaired)))
    return TextCall(name, json.dumps(value, ensure_ascii=False), notes)


def _arguments_of(call: dict[str, Any]) -> tuple[dict[str, Any], str] | str:
    """The call's arguments and what was repaired to read them, or the problem with them."""
    arguments = call.get("arguments", call.get("parameters"))
    repaired = ""
    if isinstance(arguments, str):  # some templates write the arguments as a JSON string
        try:
            read = loads_lenient(arguments) if arguments.strip() else None
        except ValueError:
            return "its arguments are not valid JSON"
        arguments, repaired = (read.value, read.repair) if read else ({}, "")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return "its arguments are not a JSON object"
    return arguments, repaired


def parse_text_calls(text: str, offered: frozenset[str] | set[str]) -> TextCalls | None:
    """Read a reply's whole text as tool calls.

    Args:
        text: the reply's text (it had no structured calls).
        offered: the names of the tools offered with the request; no other name is ever called.

    Returns:
        None when the text is an ordinary answer; else the calls, or the problem that stops a
        failed attempt from being made (then no call of the reply is made). A call read with a
        repair (a stray fence, near-JSON: ``call_repair.py``) says so in ``repaired``.
    """
    segments = _segments(text)
    if not segments:
        return None
    names = frozenset(offered)
    calls: list[TextCall] = []
    around = ", ".join(sorted({note for kind, _, note in segments if kind == "junk"}))
    for kind, body, note in segments:
        if kind == "junk":
            continue
        result = _one(kind, body, names)
        if result is None:
            return None  # one part is not a call at all: the reply is an answer
        if isinstance(result, TextCalls):
            return result
        repaired = ", ".join(filter(None, (around, note, result.repaired)))
        calls.append(TextCall(result.name, result.arguments, repaired))
    return TextCalls(calls=tuple(calls)) if calls else None


def could_be_call(text: str) -> bool:
    """Whether a reply that starts with ``text`` may still turn out to be only calls."""
    head = text.lstrip()
    if not head:
        return True
    for token in TEMPLATE_TOKENS:
        if head.startswith(token):
            return could_be_call(head[len(token) :])
        if token.startswith(head):
            return True
    if head.startswith("{") or head.startswith(OPEN_TAG) or OPEN_TAG.startswith(head):
        return True
    if head.startswith("```"):
        first_line, newline, _ = head[3:].partition("\n")
        info = first_line.strip().lower()
        if newline:
            return info in FENCE_LANGS
        return any(lang.startswith(info) for lang in FENCE_LANGS)
    return "```".startswith(head)


class TextCallGate:
    """Holds a reply's text back while it could still be a call written as text.

    Once the text can no longer be one (prose, a ```` ```python ```` fence), what was held is let
    through and so is everything after it. ``enabled`` False lets everything through at once.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._held: list[str] = []
        self._open = not enabled

    def feed(self, text: str) -> str:
        """Take a text delta; returns what may be shown now ('' while holding)."""
        if self._open:
            return text
        self._held.append(text)
        if could_be_call("".join(self._held)):
            return ""
        return self.release()

    def release(self) -> str:
        """Let everything held through (the reply was not calls after all)."""
        self._open = True
        held, self._held = "".join(self._held), []
        return held

    @property
    def holding(self) -> bool:
        return bool(self._held)
