"""Files a command line names, checked against the workspace as ``read_file`` checks its path.

``cat ../secret``, ``cat < ~/.ssh/id_rsa``, ``x=$(</etc/passwd)``, ``grep -r key /`` and a
committed symlink ``evil -> ~/.ssh/id_rsa`` read outside the workspace under a rule for ``cat`` or
``grep``; ``echo hi > /dev/tcp/HOST/PORT`` opens a connection. Every argument that looks like a path
(it has a ``/``, starts with ``~``, is ``.``/``..``, or names something that exists, a symlink
included), option values (``--file=F``, ``-I../x``, ``@F``, ``of=F``) and every ``<`` redirection
target is resolved (symlinks followed) from every folder the line may be in; outside the workspace
means ask. A word bash expands at run time (``$HOME/x``, ``$(…)``, ``{a,/etc/x}``) is a path only
known when it runs, which also asks, except as an argument of commands that take no files
(``echo``, ``printf`` ...).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable
from pathlib import Path

from agent_tui.approvals.shell import ParsedCommand, SubCommand
from agent_tui.tools.workspace_paths import inside_any

# Special files a command may name without reading anything of the user's.
_HARMLESS = frozenset({"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty",
                       "/dev/zero", "/dev/random", "/dev/urandom", "/dev/fd/0", "/dev/fd/1",
                       "/dev/fd/2"})  # fmt: skip
_NETWORK = ("/dev/tcp/", "/dev/udp/")
# Commands whose arguments are never files they open.
_NO_FILES = frozenset({"echo", "printf", "true", "false", "test", "[", "expr", "seq", "sleep",
                       "exit", "return", ":", "let", "shift", "export", "local", "declare",
                       "typeset", "readonly", "unset", "set", "basename", "dirname", "date",
                       "pwd", "wait", "kill", "type", "which", "command", "hash"})  # fmt: skip
_DIR_CHANGERS = frozenset({"cd", "pushd", "popd"})
# Commands whose first operand, or each `-e` value, is a pattern or program, not a file
# (`sed '/^#/d' f`, `grep /usr f`). Files they write or read in it are option_effects' business.
_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "gsed", "awk",
                            "gawk", "mawk", "nawk"})  # fmt: skip
_PATTERN_OPTIONS = frozenset({"-e", "--regexp", "--expression"})


def unresolvable_write(parsed: ParsedCommand, cwd: Path) -> str | None:
    """A redirection or option target the policy could not resolve without an error
    (``> /proc/1/root/x`` without permission, a NUL byte), checked before it tries."""
    for target in parsed.writes:
        if _static_target(target) and _resolve(cwd, os.path.expanduser(target)) is None:
            return f"the command writes to {target}, which cannot be resolved"
    return None


def path_problem(
    parsed: ParsedCommand, workspace: Path, cwd: Path, extra_roots: Iterable[Path] = ()
) -> str | None:
    """Why the line's paths need the user's approval, or None when all stay in the workspace.

    Args:
        parsed: the parsed command line.
        workspace: the workspace root (real path).
        cwd: where the line starts (real path, inside the workspace or an extra root).
        extra_roots: ``--add-dir`` folders (real paths), allowed as the workspace is.
    """
    check = _Checker((workspace, *extra_roots), [cwd])
    for sub in parsed.commands:
        if sub.start < len(sub.words) and sub.words[sub.start] in _DIR_CHANGERS:
            problem = check.directory_change(sub)
            if problem:
                return problem
    for target in parsed.reads:
        problem = check.path(target, f"`< {target}`", static=_static(target))
        if problem:
            return problem
    for target in parsed.writes:  # the policy checked them; `~+/x` and `~-/x` only bash knows
        if os.path.expanduser(target).startswith("~"):
            return f"`> {target}` names a path only known when it runs"
    for sub in parsed.commands:
        problem = check.arguments(sub)
        if problem:
            return problem
    return None


class _Checker:
    def __init__(self, roots: tuple[Path, ...], bases: list[Path]) -> None:
        self.roots = roots
        self.bases = bases

    def directory_change(self, sub: SubCommand) -> str | None:
        args = [w for w in sub.words[sub.start + 1 :] if not w.startswith("-")]
        raws = sub.raw[sub.start + 1 :]
        if sub.words[sub.start] == "popd" or not args or not all(_static(r) for r in raws):
            return f"`{sub.text}` changes to a folder only known when it runs"
        target = os.path.expanduser(args[0])
        resolved = [_resolve(b, target) for b in self.bases]
        if any(r is None for r in resolved):
            return f"`{sub.text}` changes to a folder that cannot be resolved"
        self.bases = self.bases + [r for r in resolved if r is not None]
        return None

    def arguments(self, sub: SubCommand) -> str | None:
        if sub.start >= len(sub.words) or sub.words[sub.start] in _NO_FILES:
            return None
        words = sub.words[sub.start + 1 :]
        skip = _patterns(os.path.basename(sub.words[sub.start]), words)
        for index, (raw, word) in enumerate(zip(sub.raw[sub.start + 1 :], words, strict=True)):
            if index in skip:
                continue
            for candidate in _candidates(word):
                problem = self.path(candidate, f"`{sub.text}`", static=_static(raw))
                if problem:
                    return problem
        return None

    def path(self, word: str, where: str, *, static: bool) -> str | None:
        if not static:
            return f"{where} names a path only known when it runs ({word})"
        if word.startswith(_NETWORK):
            return f"{where} opens a network connection ({word})"
        if word in _HARMLESS or not word:
            return None
        expanded = os.path.expanduser(word)
        if expanded.startswith("~") or _dot_glob(expanded):
            # `~+` is $PWD and `~-` $OLDPWD to bash; `.*` may match `..` (bash before 5.2).
            return f"{where} names a path only known when it runs ({word})"
        for base in self.bases:
            if not _looks_like_path(expanded, base):
                continue
            matches = glob.glob(expanded, root_dir=base) if glob.has_magic(expanded) else []
            for name in [expanded, *matches]:
                full = _resolve(base, name)
                if full is None:
                    return f"{where} names {word}, which cannot be resolved"
                if str(full) in _HARMLESS:
                    continue
                if full.as_posix().startswith(_NETWORK):
                    return f"{where} opens a network connection ({word})"
                if not inside_any(self.roots, full):
                    return f"{where} names {word}, outside the workspace"
        return None


def _patterns(name: str, words: tuple[str, ...]) -> set[int]:
    """Indexes of the words that are patterns or programs, not files (see ``_PATTERN_FIRST``)."""
    if name not in _PATTERN_FIRST:
        return set()
    values = {i + 1 for i, w in enumerate(words) if w in _PATTERN_OPTIONS}
    if values or any(w in ("-f", "--file") or w.startswith("--file=") for w in words):
        return values
    operands = [i for i, w in enumerate(words) if not w.startswith("-")]
    return set(operands[:1])


def _resolve(base: Path, name: str) -> Path | None:
    """``base / name`` with links and ``..`` resolved; None when that fails (``/proc/1/root``
    without permission, a NUL byte): the caller asks."""
    try:
        return Path(os.path.realpath(base / name))
    except (OSError, ValueError):
        return None


def _static_target(target: str) -> bool:
    """A redirection target the policy resolves (no expansion, no glob)."""
    return not any(ch in target for ch in "$`*?[")


def _candidates(word: str) -> list[str]:
    """The word and the paths inside it: option values, ``@file``, ``key=file``, file URLs."""
    found = [word]
    if word.startswith("-"):
        name, eq, value = word.partition("=")
        if eq:
            found.append(value)
        elif "/" in word:
            body = word.lstrip("-")
            cut = min((body.find(c) for c in "/~." if c in body), default=0)
            found.append(body[cut:])
    elif "=" in word:
        found.append(word.partition("=")[2])
    for item in list(found):
        if item.startswith("@"):
            found.append(item[1:])
        if item.startswith("file://"):
            found.append(item[len("file://") :] or "/")
    return found


def _dot_glob(word: str) -> bool:
    return any(part.startswith(".") and glob.has_magic(part) for part in word.split("/"))


def _looks_like_path(word: str, base: Path) -> bool:
    if "/" in word or word.startswith("~") or word in (".", ".."):
        return True
    if glob.has_magic(word):
        return True  # `*` may match a symlink that leads out
    try:
        return os.path.lexists(base / word)
    except ValueError:  # a NUL byte
        return True


def _static(raw: str) -> bool:
    """Whether bash passes ``raw`` on as written (no ``$``, backtick or brace expansion)."""
    quote = ""
    index = 0
    while index < len(raw):
        ch = raw[index]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            index += 1  # the next character is literal
        elif ch in "$`":
            return False
        elif ch == '"':
            quote = "" if quote == '"' else '"'
        elif ch == "'" and not quote:
            quote = "'"
        elif ch == "{" and not quote and ("," in raw or ".." in raw):
            return False
        index += 1
    return True
