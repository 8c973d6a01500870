"""Bash quoting and substitutions, done by hand where bashlex gets them wrong.

bashlex mis-unquotes concatenated quotes (``'a'"'"'b'``), stops a ``$(…)`` body at its first
newline, and fails on ``$(a && b)``. So before bashlex sees a line we cut every top-level ``$(…)``,
backtick, ``<(…)`` and ``>(…)`` out (``mask_substitutions``), parse those bodies separately, and
unquote words ourselves (``unquote``). Anything odd raises ``Unparseable``: the caller asks.
"""

from __future__ import annotations

from agent_tui.lazy_regex import lazy_pattern

TOKEN_PREFIX = "__agent_tui_sub_"
_WORD_START = lazy_pattern(r"(?:^|(?<=[\s;&|()<>]))#")


class Unparseable(Exception):
    """The line holds something we cannot see through: ask rather than guess."""


def unquote(raw: str) -> str | None:
    """The word as bash passes it on (quotes removed), or None if we cannot be sure.

    Bash's rules, not shlex's: inside double quotes a backslash also escapes ``$`` and a
    backtick, so ``"\\$(x)"`` is the text ``$(x)``, which ``bash -c`` then runs. Unsure: ANSI-C
    ``$'…'`` or locale ``$"…"`` quoting, unquoted whitespace (``$(a b)``), unbalanced quotes.
    """
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch == "'":
            end = raw.find("'", i + 1)
            if end < 0:
                return None
            out.append(raw[i + 1 : end])
            i = end + 1
        elif ch == '"':
            i += 1
            while i < n and raw[i] != '"':
                if raw[i] == "\\" and i + 1 < n and raw[i + 1] in '$`"\\\n':
                    out.append("" if raw[i + 1] == "\n" else raw[i + 1])
                    i += 2
                else:
                    out.append(raw[i])
                    i += 1
            if i >= n:
                return None
            i += 1
        elif ch == "\\":
            if i + 1 >= n:
                return None
            out.append("" if raw[i + 1] == "\n" else raw[i + 1])
            i += 2
        elif ch == "$" and i + 1 < n and raw[i + 1] in "'\"":
            return None
        elif ch in " \t\n":
            return None
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def mask_substitutions(line: str) -> tuple[str, dict[str, tuple[str, str]]]:
    """Replace each top-level substitution by a plain token.

    Returns:
        The masked line, and for each token the original text and the body to parse.

    Raises:
        Unparseable: an unclosed quote or substitution, arithmetic ``$((…))``, or a line that
            already contains our token prefix.
    """
    if TOKEN_PREFIX in line:
        raise Unparseable
    out: list[str] = []
    subs: dict[str, tuple[str, str]] = {}
    i, n, in_double = 0, len(line), False
    while i < n:
        ch = line[i]
        start = i
        if ch == "\\":
            i += 2
        elif ch == "'" and not in_double:
            i = _closing_single(line, i + 1) + 1
        elif ch == "#" and not in_double and _WORD_START().match(line, i):
            end = line.find("\n", i)
            i = n if end < 0 else end
        elif ch == '"':
            in_double = not in_double
            i += 1
        elif ch == "`":
            body, i = _backtick_body(line, i + 1)
            out.append(_token(subs, line[start:i], body))
            continue
        elif line.startswith("$((", i):
            raise Unparseable
        elif line.startswith("$(", i) or (not in_double and line.startswith(("<(", ">("), i)):
            end = _closing_paren(line, i + 2)
            i = end + 1
            out.append(_token(subs, line[start:i], line[start + 2 : end]))
            continue
        else:
            i += 1
        out.append(line[start:i])
    if in_double:
        raise Unparseable
    return "".join(out), subs


def restore(text: str, subs: dict[str, tuple[str, str]]) -> str:
    """Put the original substitutions back into masked text."""
    for token, (original, _) in subs.items():
        if token in text:
            text = text.replace(token, original)
    return text


def _token(subs: dict[str, tuple[str, str]], original: str, body: str) -> str:
    token = f"{TOKEN_PREFIX}{len(subs)}__"
    subs[token] = (original, body)
    return token


def _closing_single(text: str, start: int) -> int:
    end = text.find("'", start)
    if end < 0:
        raise Unparseable
    return end


def _backtick_body(text: str, start: int) -> tuple[str, int]:
    """The unescaped body of a backtick substitution starting at ``start``, and the index after."""
    out: list[str] = []
    i = start
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "`$\\":
            out.append(text[i + 1])
            i += 2
        elif text[i] == "`":
            return "".join(out), i + 1
        else:
            out.append(text[i])
            i += 1
    raise Unparseable


def _closing_paren(text: str, start: int) -> int:
    """Index of the ``)`` closing a ``$(`` whose body starts at ``start``."""
    depth, i, n = 1, start, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            i = _closing_single(text, i + 1) + 1
            continue
        if ch == '"':
            i = _closing_double(text, i + 1) + 1
            continue
        if ch == "`":
            _, i = _backtick_body(text, i + 1)
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise Unparseable


def _closing_double(text: str, start: int) -> int:
    i = start
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i
        elif text.startswith("$(", i):
            i = _closing_paren(text, i + 2) + 1
        elif text[i] == "`":
            _, i = _backtick_body(text, i + 1)
        else:
            i += 1
    raise Unparseable
