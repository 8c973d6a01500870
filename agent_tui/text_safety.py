"""Make outside text safe to show on a terminal: control and invisible characters become visible.

Text from a model, a tool's output, an MCP server or a workspace file may carry characters that the
terminal acts on instead of showing: ESC starts a CSI/OSC sequence (``ESC[2K`` erases the line, OSC 0
retitles the window), a lone CR returns to the start of the line so later text overwrites earlier
text, the C1 byte 0x9B is a one-byte CSI on some terminals, bidi overrides (U+202E) reorder what is
shown, and zero-width characters hide text inside text. Any of these can make an approval dialog
show something other than what will run.

``visible()`` replaces every such character with a visible stand-in, so what the person reads is
what the text holds:

- C0 controls and DEL -> their Unicode "control pictures" (ESC -> ``␛``, CR -> ``␍``, NUL -> ``␀``);
  tab and newline are kept where layout needs them (``keep_newlines``), CRLF counts as a newline;
- C1 controls (U+0080..U+009F) -> ``\\x9b``;
- format characters (Unicode category Cf: bidi controls, zero-width space/joiners, soft hyphen, BOM,
  tag characters), the line/paragraph separators and the invisible variation selectors U+E0100..
  -> ``\\u202e`` / ``\\U000e0041``.

The core (headless output, logs) and the TUI both use it; it imports nothing from the UI.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent_tui.lazy_regex import lazy_pattern

# Unicode category Cf (format) as of Unicode 15.1, hard-coded because building it from unicodedata
# means a pass over 1.1M code points at start-up; tests/test_text_safety.py checks it against the
# running Python's unicodedata so a newer Unicode version cannot slip a character past.
# The ones a terminal draws as a glyph (one cell wide) are apart: drop_unsafe() keeps them.
_FORMAT_DRAWN = "\u00ad\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\U000110bd\U000110cd"
_FORMAT_HIDDEN = (
    "\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f"
)
_FORMAT = _FORMAT_DRAWN + _FORMAT_HIDDEN
_OTHER = "\u2028\u2029\U000e0100-\U000e01ef"  # line/paragraph separators, invisible selectors
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 without tab and newline, DEL, C1
_UNSAFE_KEEP = re.compile(f"\r\n|[{_CONTROLS}{_FORMAT}{_OTHER}]")
_UNSAFE_ALL = re.compile(f"[\t\n{_CONTROLS}{_FORMAT}{_OTHER}]")
# What json.dumps(ensure_ascii=False) leaves raw: it escapes C0 but not DEL, C1 or format characters.
_JSON_RAW = re.compile(f"[\x7f-\x9f{_FORMAT}{_OTHER}]")
_ENTITY = lazy_pattern(r"&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});")
_UNSAFE_DROP = lazy_pattern(f"[\x00-\x1f{_CONTROLS}{_FORMAT_HIDDEN}{_OTHER}]")


def _picture(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # U+2400 CONTROL PICTURES: ␀ .. ␟ (␛ for ESC, ␍ for CR)
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0x9F:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _replace_keeping_layout(match: re.Match[str]) -> str:
    found = match.group()
    return "\n" if found == "\r\n" else _picture(found)


def _replace(match: re.Match[str]) -> str:
    return _picture(match.group())


def visible(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every terminal-dangerous or invisible character shown as a visible stand-in.

    Args:
        text: text from outside (model, tool output, MCP server, workspace file).
        keep_newlines: keep tab, newline and CRLF (as a newline) for multi-line layout; False for
            one-line places (a stderr status line, a title), where a newline could forge a line.

    Returns:
        The text itself when nothing needed replacing (the common case costs one regex search).
    """
    pattern = _UNSAFE_KEEP if keep_newlines else _UNSAFE_ALL
    if pattern.search(text) is None:
        return text
    replace: Callable[[re.Match[str]], str] = _replace_keeping_layout if keep_newlines else _replace
    return pattern.sub(replace, text)


def one_line(text: str) -> str:
    """``visible(text)`` for one-line places: newline and tab shown as ``␊`` and ``␉`` too."""
    return visible(text, keep_newlines=False)


def visible_markdown(text: str) -> str:
    """``visible(text)`` for Markdown source: also keeps entities from bringing the characters back.

    A Markdown renderer decodes ``&#x202e;``, ``&#13;`` or ``&zwj;`` into the very characters
    ``visible()`` removed; such an entity gets its ``&`` escaped, so it shows as written.
    """

    import html  # ~1 ms with its entity table: only when Markdown is shown

    def literal(match: re.Match[str]) -> str:
        entity = match.group()
        decoded = html.unescape(entity)
        return entity if visible(decoded) == decoded else "&amp;" + entity[1:]

    return _ENTITY().sub(literal, visible(text))


def escape_json(encoded: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with DEL, C1 and format characters
    written as ``\\uXXXX`` escapes: the same JSON value, and nothing a terminal acts on when the
    output or a saved file is shown with ``cat``. Those characters can only occur inside strings.
    """

    def escaped(match: re.Match[str]) -> str:
        raw = match.group().encode("utf-16-be")  # beyond the BMP: a surrogate pair, as JSON wants
        return "".join(f"\\u{raw[i]:02x}{raw[i + 1]:02x}" for i in range(0, len(raw), 2))

    return _JSON_RAW.sub(escaped, encoded)


def drop_unsafe(text: str) -> str:
    """``text`` without the characters ``visible()`` replaces that take no cell on screen.

    For a last line of defence where the width must not change (a rendered terminal line): the
    controls, tab, newline and invisible format characters take no cells, so removing them keeps
    the layout already computed; the few format characters drawn as a glyph stay.
    """
    return _UNSAFE_DROP().sub("", text)
