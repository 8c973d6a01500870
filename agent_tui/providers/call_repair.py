"""Tool-call arguments a model wrote almost as JSON, read when only one reading is possible.

Small local models write JSON with a Python accent: a string in single quotes
(``"content": '{"debug": true}'``), ``True``/``False``/``None``, a trailing comma, a raw newline
inside a string, or the call's Markdown fence left at either end. Strict JSON is tried first; then
JSON that allows raw control characters in strings; then the same text without a stray fence;
then a Python-literal reading (``ast.literal_eval``, which never runs code) with ``true``,
``false`` and ``null`` read as JSON means them. A reading is kept only when its result is plain
JSON data (objects with string keys, arrays, strings, finite numbers, booleans, null), so a
tuple, a set or bytes is refused rather than guessed at. The caller says in the call's result
that it was repaired, so the model is told to send strict JSON.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from agent_tui.lazy_regex import lazy_pattern

# The three JSON words and the Python ones they mean; each pair is the same length, so the
# text can be rewritten in place at the positions the tokenizer reports.
_JSON_WORDS = {"true": "True", "false": "False", "null": "None"}
_LEADING_FENCE = lazy_pattern(r"\A\s*```[ \t]*(?:json|tool_call|tool_code)?[ \t]*\r?\n", re.I)
_TRAILING_FENCE = lazy_pattern(r"\r?\n?[ \t]*```\s*\Z")
STRAY_FENCE = "a stray ``` fence was removed"
MAX_DEPTH = 100  # nesting deeper than this is not a call's arguments


@dataclass(frozen=True)
class Lenient:
    """A value read from near-JSON: ``repair`` says what was repaired ("" for strict JSON)."""

    value: Any
    repair: str = ""


def loads_lenient(text: str) -> Lenient:
    """Read ``text`` as JSON, repairing what has only one reading.

    Raises:
        json.JSONDecodeError: the strict parser's error when no reading works.
    """
    try:
        return Lenient(json.loads(text))
    except json.JSONDecodeError as strict_error:
        error = strict_error
    found = _repaired(text)
    if found is None:
        unfenced = _without_fences(text)
        if unfenced != text:
            inner = _strict_or_repaired(unfenced)
            if inner is not None:
                notes = (STRAY_FENCE, inner.repair)
                return Lenient(inner.value, ", ".join(filter(None, notes)))
        raise error
    return found


def _strict_or_repaired(text: str) -> Lenient | None:
    try:
        return Lenient(json.loads(text))
    except json.JSONDecodeError:
        return _repaired(text)


def _repaired(text: str) -> Lenient | None:
    """The JSON-with-raw-newlines, then the Python-literal reading of ``text``, or None."""
    try:
        return Lenient(json.loads(text, strict=False), "raw line breaks inside strings were read")
    except json.JSONDecodeError:
        pass
    value = python_literal(text)
    if value is None:
        return None
    return Lenient(value[0], "it was read as a Python literal (single quotes, True/False/None)")


def _without_fences(text: str) -> str:
    """``text`` without a Markdown fence opening it or closing it."""
    return _TRAILING_FENCE().sub("", _LEADING_FENCE().sub("", text, count=1), count=1)


def python_literal(text: str) -> tuple[Any] | None:
    """The value of ``text`` as a Python literal with JSON's words, as a 1-tuple; None when it
    is not one or its value is not plain JSON data."""
    import ast  # ~1.5 ms with tokenize: only for a reply that is not JSON
    import warnings

    source = _with_python_words(text.strip())
    if source is None:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "\d" in a string: an invalid escape, kept as written
        try:
            value = ast.literal_eval(source)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    try:
        return (_plain_json(value, 0),)
    except ValueError:
        return None


def _with_python_words(text: str) -> str | None:
    """``text`` with the names ``true``/``false``/``null`` (not inside strings) made Python's;
    None when it has any other name, or does not tokenize."""
    import io
    import tokenize

    lines = text.split("\n")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for token in tokens:
        if token.type != tokenize.NAME or token.string in ("True", "False", "None"):
            continue
        word = _JSON_WORDS.get(token.string)
        if word is None or token.start[0] != token.end[0]:
            return None  # any other name is not a literal
        row, col = token.start[0] - 1, token.start[1]
        line = lines[row]
        lines[row] = line[:col] + word + line[col + len(word) :]
    return "\n".join(lines)


def _plain_json(value: Any, depth: int) -> Any:
    """``value`` when it is plain JSON data (surrogate pairs in strings joined), else ValueError."""
    if depth > MAX_DEPTH:
        raise ValueError("too deep")
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    if isinstance(value, str):
        # '\ud83d\ude00' in Python quotes is two halves; JSON would have read one character.
        return value.encode("utf-16", "surrogatepass").decode("utf-16")
    if isinstance(value, list):
        return [_plain_json(item, depth + 1) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {
            _plain_json(key, depth + 1): _plain_json(item, depth + 1) for key, item in value.items()
        }
    raise ValueError(f"not JSON data: {type(value).__name__}")
