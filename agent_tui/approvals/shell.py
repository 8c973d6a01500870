"""Split a shell command line into every command it would run (DESIGN §5 step 6).

Terminal rules are checked on each sub-command, so ``git status && rm -rf ~`` is not approved by a
rule for ``git status``. The line is parsed with bashlex (a real bash grammar), and we walk the whole
tree: lists (``&&``, ``||``, ``;``), pipelines, subshells and brace groups, ``if``/``for``/``while``
bodies, function bodies, ``$(…)``, backticks and ``<(…)``. ``bash -c '…'``, ``sh -c`` and ``eval``
are parsed again and replaced by what they run. Commands that run another command (``sudo``,
``xargs``, ``env``, ``timeout``, ``find -exec`` ...) yield both themselves and the wrapped command, so
the wrapped one needs its own rule.

Each sub-command also carries what its options do (option_effects.py: ``git log --output=F``
writes, ``find -exec`` runs), and the line's redirections are collected: ``>`` targets as writes,
``<`` ones as reads (the policy checks both against the workspace).

Anything we cannot parse gives ``None``: the caller must then ask (never guess). That includes words
bash evaluates again where we cannot follow: an array subscript holding an expansion
(``printf -v 'a[$(rm x)]' 1``, ``test -v``, ``read``, ``declare`` and ``[[ … -eq … ]]`` evaluate
``a[…]`` as arithmetic, running what is inside even from single quotes) and ``${x@P}``.

Why bashlex and not tree-sitter-bash (tree-sitter 0.26.1 + tree-sitter-bash 0.25.1 wheels install
here; measured with a prototype splitter sharing this module's unwrapping): on 300
lines of the bash-oracle strategy (tests/approvals/test_shell_oracle.py, seed 1234) neither missed a
command bash ran, and on this package's split tests the prototype differed only where it parses
more or lacked unwrapping code not yet ported. tree-sitter parses ``case``, ``select``, ``[[ … ]]``,
arrays and ``$[…]``, where bashlex fails and we ask, and is faster (bench/bench_shell_parsers.py:
import about 1/15 of stock bashlex's, which builds its parser tables at import where we load stored
ones, bashlex_fast.py; a parse about 1/30). But it does not look into a backtick substitution
escaped inside another (which bash runs; it needs the same re-parse work-around as bashlex's
``$(…)``), it recovers from errors silently (every tree must be checked for ``has_error``), and
neither grammar sees into a quoted array subscript, the attack of this item. Every difference is
bashlex asking where it could allow, never a hole, so we keep it.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from agent_tui.approvals.bashlex_fast import import_bashlex
from agent_tui.approvals.option_effects import OptionEffect, option_effects, written_arguments
from agent_tui.approvals.shell_words import Unparseable, mask_substitutions, restore, unquote
from agent_tui.lazy_regex import lazy_pattern

# Shells whose ``-c SCRIPT`` we parse and unwrap.
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh"})
# Commands that run the command given in their remaining words (after options).
_WRAPPERS = frozenset(
    {"sudo", "doas", "env", "nohup", "time", "nice", "ionice", "timeout", "xargs", "exec",
     "command", "builtin", "stdbuf", "watch", "chronic", "caffeinate", "unbuffer"}
)  # fmt: skip
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# Redirection targets that write nothing the user cares about.
_HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
_MAX_DEPTH = 10
# A `[` whose subscript holds an expansion; bash evaluates it again as arithmetic (see above).
_SUBSCRIPT_EXPANSION = lazy_pattern(r"\[[^\]]*[$`]")


@dataclass(frozen=True)
class SubCommand:
    """One simple command of a command line.

    Args:
        text: the command's words as written (quotes kept), joined by single spaces; rules match this.
        words: the same words with quotes removed.
        effects: the words that make it write files or run programs (option_effects.py).
        start: the index in ``words`` of the command name (after leading ``A=1`` assignments).
        raw: the words as written (quotes kept).
    """

    text: str
    words: tuple[str, ...]
    effects: tuple[OptionEffect, ...] = ()
    start: int = 0
    raw: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedCommand:
    """A parsed command line: every sub-command, and the files it writes and reads.

    ``writes`` holds redirection targets and the files options and arguments write (``tee F``,
    ``--output=F``); ``reads`` the ``<`` redirection targets (also ``$(<F)``).
    """

    commands: tuple[SubCommand, ...]
    writes: tuple[str, ...]
    reads: tuple[str, ...] = ()


def parse_command(line: str) -> ParsedCommand | None:
    """Parse a command line into its sub-commands and redirection targets.

    Args:
        line: the command line as the model sent it.

    Returns:
        The parsed line, or None when it cannot be parsed or contains no command at all (the
        caller then asks the user).
    """
    walker = _Walker()
    try:
        walker.parse(line, depth=0)
    except Unparseable:
        return None
    if not walker.commands:
        return None
    return ParsedCommand(tuple(walker.commands), tuple(walker.writes), tuple(walker.reads))


def split_command(line: str) -> list[str] | None:
    """The text of every sub-command of ``line``, or None when it cannot be parsed."""
    parsed = parse_command(line)
    return None if parsed is None else [c.text for c in parsed.commands]


class _Walker:
    def __init__(self) -> None:
        self.commands: list[SubCommand] = []
        self.writes: list[str] = []
        self.reads: list[str] = []

    def parse(self, line: str, depth: int) -> None:
        # Imported when a terminal command is first decided, with prebuilt tables (bashlex_fast.py).
        bashlex = import_bashlex()
        if depth > _MAX_DEPTH or not line.strip():
            raise Unparseable
        masked, subs = mask_substitutions(line)
        for _, body in subs.values():
            self.parse(body, depth + 1)
        try:
            trees = bashlex.parse(masked)
        except Exception as exc:  # bashlex raises many unrelated types; any of them means "ask"
            raise Unparseable from exc
        source = _Source(masked, subs)
        for tree in trees:
            self._visit(tree, source, depth)

    def _visit(self, node: Any, source: _Source, depth: int) -> None:
        kind = getattr(node, "kind", None)
        if kind == "command":
            self._command(node, source, depth)
            return
        if kind == "redirect":
            self._redirect(node, source)
            return
        if kind == "heredoc" and any(ch in node.value for ch in "$`'\"\\"):
            # bashlex keeps here-document bodies as raw text, so expansions in them are invisible,
            # and quotes in them would throw mask_substitutions' quote tracking off.
            raise Unparseable
        for attr in ("parts", "list", "redirects"):
            for child in getattr(node, attr, None) or ():
                self._visit(child, source, depth)
        for attr in ("command", "output", "heredoc"):
            child = getattr(node, attr, None)
            if child is not None and hasattr(child, "kind"):
                self._visit(child, source, depth)

    def _command(self, node: Any, source: _Source, depth: int) -> None:
        words = [p for p in node.parts if p.kind in ("word", "assignment")]
        for part in node.parts:
            self._visit(part, source, depth)
        if not words:
            return
        raw = tuple(source.text(w) for w in words)
        plain = tuple(unquote(r) or r for r in raw)
        for word in (*raw, *plain):
            if _SUBSCRIPT_EXPANSION().search(word) or "@P}" in word:
                raise Unparseable
        self._emit(raw, plain, depth)

    def _emit(self, raw: tuple[str, ...], plain: tuple[str, ...], depth: int) -> None:
        # Leading assignments stay part of the text (``PAGER=x git log`` is not ``git log``), but
        # the command name for unwrapping is the first word after them.
        start = 0
        while start < len(plain) and re.match(r"[A-Za-z_][A-Za-z0-9_]*=", plain[start]):
            start += 1
        name = os.path.basename(plain[start]) if start < len(plain) else ""
        if name in _SHELLS and start == 0:
            index = _shell_script(plain[1:])
            if index is not None:
                self.parse(_script_text(raw[1 + index]), depth + 1)
                return
        if name == "eval" and start == 0:
            self.parse(" ".join(_script_text(r) for r in raw[1:]), depth + 1)
            return
        args = plain[start + 1 :]
        effects = tuple(option_effects(name, args)) if start < len(plain) else ()
        self.commands.append(SubCommand(" ".join(raw), plain, effects, start, raw))
        for effect in effects:
            if effect.target is not None:
                (self.reads if effect.action == "reads" else self.writes).append(effect.target)
        self.writes.extend(written_arguments(name, args))
        if name in _WRAPPERS:
            inner = _wrapped(name, plain[start + 1 :], raw[start + 1 :])
            if inner:
                self._emit(inner[1], inner[0], depth + 1)
        elif name == "find":
            for inner_plain, inner_raw in _find_exec(plain, raw):
                self._emit(inner_raw, inner_plain, depth + 1)

    def _redirect(self, node: Any, source: _Source) -> None:
        output: Any = getattr(node, "output", None)
        if hasattr(output, "kind") and node.type not in ("<<", "<<-", "<<<"):
            raw = source.text(output)
            target = unquote(raw) or raw
            if ">" in node.type and target not in _HARMLESS_TARGETS:
                self.writes.append(target)
            if "<" in node.type:  # `< F`, `<> F` (also read-write), `<& F`
                self.reads.append(target)
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None:
            self._visit(heredoc, source, 0)


@dataclass(frozen=True)
class _Source:
    """A masked line and its cut-out substitutions; gives back the original text of a node."""

    masked: str
    subs: dict[str, tuple[str, str]]

    def text(self, node: Any) -> str:
        return restore(self.masked[node.pos[0] : node.pos[1]], self.subs)


def _shell_script(args: tuple[str, ...]) -> int | None:
    """Where SCRIPT is in ``sh [-opts] -c SCRIPT``; None when the shell runs a file or stdin."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("-o", "+o", "-O", "+O"):
            index += 2  # these take the option name as the next word: `bash -o pipefail -c …`
            continue
        if arg.startswith("-") and not arg.startswith("--") and "c" in arg[1:]:
            rest = [i for i in range(index + 1, len(args)) if not args[i].startswith(("-", "+"))]
            return rest[0] if rest else None
        if not arg.startswith(("-", "+")):
            return None  # a script file: `bash build.sh`
        index += 1
    return None


def _script_text(raw: str) -> str:
    """A word that is shell code to run (``bash -c WORD``, ``eval WORD``), unquoted."""
    text = unquote(raw)
    if text is None:
        raise Unparseable
    return text


def _wrapped(
    name: str, plain: tuple[str, ...], raw: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The command a wrapper runs, skipping its options (approximate: a wrong guess only asks)."""
    index = 0
    while index < len(plain) and plain[index].startswith("-"):
        index += 1
    if name == "env":
        while index < len(plain) and ("=" in plain[index] or plain[index].startswith("-")):
            index += 1
    elif name == "timeout" and index < len(plain):
        index += 1  # the duration
    if index >= len(plain):
        return None
    return plain[index:], raw[index:]


def _find_exec(
    plain: tuple[str, ...], raw: tuple[str, ...]
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    found = []
    index = 0
    while index < len(plain):
        if plain[index] in _FIND_EXEC:
            end = index + 1
            while end < len(plain) and plain[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                found.append((plain[index + 1 : end], raw[index + 1 : end]))
            index = end
        index += 1
    return found
