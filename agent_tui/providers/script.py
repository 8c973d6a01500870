"""The script format shared by the ``scripted`` provider, ``--record`` and the fake LLM server.

A script is a JSON list (or JSONL, one object a line) of assistant turns::

    {"text": "...", "thinking": "...", "signature": "...", "redacted_thinking": "...",
     "tool_calls": [{"id": "call_1", "name": "read_file", "input": {"path": "a.py"}}],
     "usage": {"input_tokens": 10, "output_tokens": 5}, "stop_reason": null, "fault": null}

Every key is optional. ``web_searches`` are the provider's own searches
before the text, each ``{"query": "...", "results": [{"title": "...", "url": "..."}], "error":
"max_uses_exceeded"}``; ``citations`` (``{"url", "title", "cited_text"}``) are cited by the text. ``input`` may be a string: it is then sent verbatim as the arguments (how a
recording keeps arguments the model got wrong). ``redacted_thinking`` is the opaque ``data`` of an
Anthropic ``redacted_thinking`` block, sent after the thinking. ``stop_reason`` defaults to ``tool_use`` when the
turn calls tools, else ``end_turn``.

``fault`` (read by the fake server; the scripted provider honours the ones marked *):
- ``{"status": 429, "times": 2, "retry_after": 0}``: fail N requests with that status, then serve
  the turn (*; any status: 401, 404, 500, 529 ...);
- ``"cut"``: drop the connection half-way through the text (*);
- ``"stream_error"``: an in-stream ``overloaded`` error event there instead (*);
- ``"cut_at_end"``: drop the connection after the complete answer, before the stream's end;
- ``"malformed_tool_json"``: tool arguments that do not parse (*);
- ``"unknown_event"``: an SSE comment and an event type no client knows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.errors import ConfigError

_TURN_KEYS = {
    "text",
    "thinking",
    "signature",
    "redacted_thinking",
    "tool_calls",
    "usage",
    "stop_reason",
    "fault",
    "web_searches",
    "citations",
}
_TEXT_KEYS = ("thinking", "signature", "redacted_thinking", "text")
_CALL_KEYS = {"id", "name", "input"}
_SIMPLE_FAULTS = {"cut", "cut_at_end", "stream_error", "malformed_tool_json", "unknown_event"}
BREAK_FAULTS = ("cut", "stream_error")  # faults that end a turn half-way through its text


@dataclass(frozen=True)
class ScriptToolCall:
    """A tool call a scripted turn makes (input as a dict, or raw text to test bad JSON)."""

    id: str
    name: str
    input: dict[str, Any] | str = field(default_factory=dict)

    @property
    def arguments(self) -> str:
        """The arguments as the JSON text a model would stream."""
        return self.input if isinstance(self.input, str) else json.dumps(self.input)


@dataclass(frozen=True)
class ScriptTurn:
    """One scripted assistant turn: text, thinking, tool calls, usage and an injected fault."""

    text: str = ""
    thinking: str = ""
    signature: str = ""
    redacted_thinking: str = ""
    tool_calls: tuple[ScriptToolCall, ...] = ()
    usage: dict[str, int] = field(default_factory=dict)
    stop_reason: str | None = None
    fault: Any = None
    web_searches: tuple[dict[str, Any], ...] = ()
    citations: tuple[dict[str, Any], ...] = ()

    @property
    def final_stop_reason(self) -> str:
        """The normalised stop reason: explicit, else ``tool_use`` when calling tools."""
        return self.stop_reason or ("tool_use" if self.tool_calls else "end_turn")

    def to_dict(self) -> dict[str, Any]:
        """The turn as a script object, leaving out empty keys."""
        out: dict[str, Any] = {}
        for key in _TEXT_KEYS:
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "name": c.name, "input": c.input} for c in self.tool_calls
            ]
        if self.usage:
            out["usage"] = dict(self.usage)
        if self.stop_reason and self.stop_reason != ("tool_use" if self.tool_calls else "end_turn"):
            out["stop_reason"] = self.stop_reason
        if self.fault is not None:
            out["fault"] = self.fault
        for key in ("web_searches", "citations"):
            if getattr(self, key):
                out[key] = list(getattr(self, key))
        return out


def _objects(data: dict[str, Any], key: str, source: str, where: str) -> tuple[Any, ...]:
    found = data.get(key) or []
    if not isinstance(found, list) or not all(isinstance(o, dict) for o in found):
        raise _fail("must be a list of objects", source, f"{where}.{key}")
    return tuple(found)


def _fail(reason: str, source: str, where: str) -> ConfigError:
    return ConfigError(reason, file=source, key=where)


def _parse_fault(fault: Any, source: str, where: str) -> Any:
    if fault is None or (isinstance(fault, str) and fault in _SIMPLE_FAULTS):
        return fault
    if isinstance(fault, dict) and isinstance(fault.get("status"), int):
        return fault
    raise _fail(
        f"unknown fault {fault!r}: use {sorted(_SIMPLE_FAULTS)} or {{'status': 429, 'times': 1}}",
        source,
        f"{where}.fault",
    )


def parse_turn(data: Any, *, source: str = "script", position: int = 0) -> ScriptTurn:
    """Check one script object and turn it into a :class:`ScriptTurn`.

    Raises:
        ConfigError: naming the turn and the key that is wrong.
    """
    where = f"turn {position + 1}"
    if not isinstance(data, dict):
        raise _fail("a turn must be a JSON object", source, where)
    unknown = sorted(set(data) - _TURN_KEYS)
    if unknown:
        raise _fail(f"unknown key {unknown[0]!r} (known: {sorted(_TURN_KEYS)})", source, where)
    for key in _TEXT_KEYS:
        if not isinstance(data.get(key, ""), str):
            raise _fail("must be a string", source, f"{where}.{key}")
    calls = []
    raw_calls = data.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise _fail("must be a list", source, f"{where}.tool_calls")
    for n, call in enumerate(raw_calls):
        call_where = f"{where}.tool_calls[{n}]"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise _fail("needs a string 'name'", source, call_where)
        if set(call) - _CALL_KEYS:
            raise _fail(f"unknown key {sorted(set(call) - _CALL_KEYS)[0]!r}", source, call_where)
        tool_input = call.get("input", {})
        if not isinstance(tool_input, dict | str):
            raise _fail("'input' must be an object or a string", source, call_where)
        call_id = call.get("id") or f"call_{position + 1}_{n + 1}"
        calls.append(ScriptToolCall(str(call_id), call["name"], tool_input))
    usage = data.get("usage") or {}
    if not isinstance(usage, dict) or not all(isinstance(v, int) for v in usage.values()):
        raise _fail("must map names to integers", source, f"{where}.usage")
    return ScriptTurn(
        text=data.get("text", ""),
        thinking=data.get("thinking", ""),
        signature=data.get("signature", ""),
        redacted_thinking=data.get("redacted_thinking", ""),
        tool_calls=tuple(calls),
        usage=usage,
        stop_reason=data.get("stop_reason"),
        fault=_parse_fault(data.get("fault"), source, where),
        web_searches=_objects(data, "web_searches", source, where),
        citations=_objects(data, "citations", source, where),
    )


def parse_script(text: str, *, source: str = "script") -> list[ScriptTurn]:
    """Parse a script: a JSON list of turns, or JSONL with one turn a line.

    Raises:
        ConfigError: the text is neither, or a turn is malformed.
    """
    stripped = text.strip()
    if not stripped:
        return []
    if stripped.startswith("["):
        try:
            items = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"not valid JSON: {exc}", file=source) from None
    else:
        items = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                items.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"line {lineno} is not valid JSON: {exc}", file=source) from None
    return [parse_turn(item, source=source, position=n) for n, item in enumerate(items)]


def load_script(path: str | Path) -> list[ScriptTurn]:
    """Read and parse a script file.

    Raises:
        ConfigError: the file cannot be read or is malformed.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the script: {exc.strerror}", file=str(path)) from None
    return parse_script(text, source=str(path))


def chunk_text(text: str, size: int = 12) -> list[str]:
    """Split text into small pieces, the way a model streams it."""
    return [text[i : i + size] for i in range(0, len(text), size)]
