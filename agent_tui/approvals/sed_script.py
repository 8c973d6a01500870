"""What a sed program does besides editing its stream: ``w FILE``, ``s/a/b/w FILE``, ``e``, ``r``.

``sed 's/a/b/w ~/.bashrc' f`` writes a file and ``sed '1e rm -rf x'`` runs a command, so under a
rule for ``sed`` they must ask. A small scanner of GNU sed's command syntax finds those commands;
anything it does not recognise counts as running a program (ask rather than guess).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from agent_tui.approvals.option_effects import OptionEffect

Found = list[tuple[Literal["writes", "runs", "reads"], str | None]]

# Commands that take no argument, or an optional number (q, Q, l, L).
_SIMPLE = set("=dDgGhHlLnNpPqQxzF{}") | {"v"}
_TEXT = set("aic")  # GNU one-liners: the rest of the line is text
_LABEL = set(":btT")


def sed_script_effects(args: tuple[str, ...]) -> list[OptionEffect]:
    """Effects of the sed programs among ``args`` (``-e X``, ``--expression=X`` or the first operand)."""
    from agent_tui.approvals.option_effects import OptionEffect

    scripts, operands = [], []
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-e", "--expression", "-l", "--line-length", "-f", "--file"):
            if word in ("-e", "--expression") and index + 1 < len(args):
                scripts.append(args[index + 1])
            index += 2
            continue
        if word.startswith("--expression="):
            scripts.append(word.partition("=")[2])
        elif word.startswith("-e") and len(word) > 2:
            scripts.append(word[2:])
        elif not word.startswith("-"):
            operands.append(word)
        index += 1
    if not scripts and operands:
        scripts.append(operands[0])
    found = []
    for script in scripts:
        for action, target in _scan(script):
            found.append(OptionEffect(script, action, target))
    return found


def _scan(script: str) -> Found:  # noqa: C901 - one scanner, one loop
    """(action, file) for each command of ``script`` that writes, reads or runs."""
    found: Found = []
    i, n = 0, len(script)
    while i < n:
        ch = script[i]
        if ch in " \t\n;!,0123456789$~+":
            i += 1
            continue
        if ch in "/\\":  # an address /re/ or \cREc
            delim = ch if ch == "/" else (script[i + 1] if i + 1 < n else "")
            i = _skip_delimited(script, i + (1 if ch == "/" else 2), delim)
            while i < n and script[i] in "IM":
                i += 1
            continue
        if ch == "s" or ch == "y":
            if i + 1 >= n:
                return [("runs", None)]
            delim = script[i + 1]
            i = _skip_delimited(script, i + 2, delim)
            i = _skip_delimited(script, i, delim)
            while ch == "s" and i < n and script[i] not in ";\n}":  # the flags: g, p, 2, e, w F
                if script[i] == "e":
                    found.append(("runs", None))
                if script[i] == "w":
                    found.append(("writes", _rest_of_line(script, i + 1)))
                    i = _end_of_line(script, i)
                    break
                i += 1
            continue
        if ch in "wW":
            found.append(("writes", _rest_of_line(script, i + 1)))
            i = _end_of_line(script, i)
            continue
        if ch in "rR":
            found.append(("reads", _rest_of_line(script, i + 1)))
            i = _end_of_line(script, i)
            continue
        if ch == "e":
            found.append(("runs", None))
            i = _end_of_line(script, i)
            continue
        if ch in _TEXT or ch in _LABEL:
            i = _end_of_command(script, i + 1, ch in _LABEL)
            continue
        if ch in _SIMPLE or ch == "#":
            i = _end_of_line(script, i) if ch == "#" else i + 1
            continue
        return [("runs", None)]  # not a command we know: ask
    return found


def _skip_delimited(script: str, start: int, delim: str) -> int:
    """The index after the ``delim`` closing a part that starts at ``start``."""
    i = start
    while i < len(script):
        if script[i] == "\\":
            i += 2
            continue
        if script[i] == delim:
            return i + 1
        i += 1
    return len(script)


def _rest_of_line(script: str, start: int) -> str:
    return script[start : _end_of_line(script, start)].strip()


def _end_of_line(script: str, start: int) -> int:
    end = script.find("\n", start)
    return len(script) if end < 0 else end


def _end_of_command(script: str, start: int, label: bool) -> int:
    # Labels end at `;` in GNU sed too; a/i/c text runs to the end of the line.
    stops = ";\n" if label else "\n"
    i = start
    while i < len(script) and script[i] not in stops:
        i += 1
    return i
