"""Walking the workspace like ripgrep does: find the ``rg`` binary, or fall back to a pure-Python
walk that honours ``.gitignore`` files and skips ``.git``, with ripgrep's glob semantics.

The fallback exists for installs without the ``ripgrep`` wheel (e.g. a platform with no binary);
it is slower but gives the same answers for the common cases.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text

RG_ENV = "AGENT_TUI_RG"  # path to rg, or empty to force the pure-Python fallback


def find_rg() -> str | None:
    """The ripgrep binary: ``$AGENT_TUI_RG``, next to the Python running us (the ``ripgrep`` wheel
    installs it in the venv's bin/), or on PATH. None when there is none (or it is disabled)."""
    override = os.environ.get(RG_ENV)
    if override is not None:
        return override or None
    name = "rg.exe" if os.name == "nt" else "rg"
    for folder in (Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))):
        candidate = folder / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


def rg_base_args(rg: str) -> list[str]:
    """Flags shared by file_search and grep_search: honour .gitignore even outside a git repo,
    include dotfiles (.github/...) but never .git itself, ignore the user's ripgrep config."""
    return [
        rg,
        "--no-config",
        "--hidden",
        "--no-require-git",
        "--glob",
        "!.git",
        "--color",
        "never",
    ]


def folder_glob(pattern: str, root: Path) -> str:
    """Turn a folder name (``src``, ``src/``) into ``src/**``, the files in it.

    ripgrep's globs match file paths, so ``-g src`` finds nothing; a model giving a folder means
    the files inside it.
    """
    bare = pattern.removeprefix("./").rstrip("/")
    if (
        bare
        and not any(ch in bare for ch in "*?[{")
        and (pattern.endswith("/") or (root / bare).is_dir())
    ):
        return f"{bare}/**"
    return pattern


@lru_cache(maxsize=256)
def glob_to_regex(pattern: str, *, anchored: bool = False) -> re.Pattern[str]:
    """Compile a gitignore / ripgrep-style glob (``*``, ``?``, ``**``, ``[abc]``, ``{a,b}``).

    A pattern without a ``/`` (besides a trailing one) matches a file name at any depth, one with a
    ``/`` matches from the root; ``anchored`` forces the latter.
    """
    pattern = pattern.removeprefix("./")
    if pattern.startswith("/"):
        pattern, anchored = pattern[1:], True
    elif "/" in pattern.rstrip("/"):
        anchored = True
    body = _translate(pattern.rstrip("/"))
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{body}(?:/.*)?$", re.DOTALL)


def _translate(glob: str) -> str:
    out: list[str] = []
    i, n = 0, len(glob)
    depth = 0  # inside {...}
    while i < n:
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end = glob.find("]", i + 2 if glob[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
            else:
                inner = glob[i + 1 : end].replace("\\", "\\\\")
                if inner[:1] in ("!", "^"):
                    inner = "^" + inner[1:]
                out.append(f"[{inner}]")
                i = end
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    if depth:
        raise ValueError(f"unclosed '{{' in glob {glob!r}")
    return "".join(out)


@dataclass(frozen=True)
class _Rule:
    """One .gitignore line as a regex, with its ``!`` and trailing ``/`` flags."""

    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _read_gitignore(path: Path) -> list[_Rule]:
    try:
        text = read_text(path, MAX_TEXT_FILE_BYTES)  # a FIFO named .gitignore must not hang a walk
    except OSError:
        return []
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line.removeprefix("\\")
        dir_only = line.endswith("/")
        try:
            rules.append(_Rule(glob_to_regex(line.rstrip("/")), negated, dir_only))
        except (ValueError, re.error):
            continue  # git ignores a pattern it cannot parse; so do we
    return rules


def _ignored(rel: str, is_dir: bool, scopes: list[tuple[str, list[_Rule]]]) -> bool:
    """Git's rule: the last matching pattern wins, deeper .gitignore files after shallower ones."""
    verdict = False
    for base, rules in scopes:
        sub = rel[len(base) + 1 :] if base else rel
        for rule in rules:
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.match(sub):
                verdict = not rule.negated
    return verdict


def walk_files(root: Path) -> Iterator[str]:
    """Yield workspace-relative POSIX paths of files under ``root``, like ``rg --files --hidden``:
    ``.git`` skipped, ``.gitignore`` files honoured, symlinks not followed."""
    yield from _walk(root, "", [])


def _walk(folder: Path, rel: str, scopes: list[tuple[str, list[_Rule]]]) -> Iterator[str]:
    rules = _read_gitignore(folder / ".gitignore")
    if rules:
        scopes = [*scopes, (rel, rules)]
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return  # unreadable folder: skip it, as rg does (with a warning we do not need)
    for entry in entries:
        if entry.name == ".git":
            continue
        child = f"{rel}/{entry.name}" if rel else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
            is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        if not (is_dir or is_file) or _ignored(child, is_dir, scopes):
            continue
        if is_dir:
            yield from _walk(Path(entry.path), child, scopes)
        else:
            yield child
