"""What the prompt input offers as you type: `/` commands, `@` participants and files, `#` references.

Pure logic over the session's registries (``Front.completions``) (no Textual here), so it is cheap to test. File paths for
``#file:`` come from ``rg --files`` when ripgrep is available, else a capped walk of the workspace;
a path with spaces is inserted quoted (``#file:"my notes.txt"``), as the reference parser reads it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.front.types import quote_path

if TYPE_CHECKING:
    from agent_tui.front.tools import Completions

MAX_FILES = 20_000  # the walk stops here: completion must stay instant in huge trees
MAX_SHOWN = 12
SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache"}
SPECIAL_REFERENCES = {
    "changes": "the working tree's git diff",
    "terminalLastCommand": "the last terminal command and its output",
}
# A `#file:` whose quote is still open at the cursor: the word being completed runs back to the `#`
# across spaces. It must start the text or follow whitespace/an opening bracket, like a reference.
_OPEN_QUOTED_FILE = re.compile(
    r"""(?<![^\s(\[{"'`])#file:(?:"(?P<double>[^"\n]*)|'(?P<single>[^'\n]*))\Z"""
)


@dataclass(frozen=True)
class Completion:
    """One offer: replace ``text[start:cursor]`` with ``insert``."""

    insert: str
    label: str
    description: str = ""


def _rg_binary() -> str | None:
    # The `ripgrep` wheel puts rg next to the interpreter, which may not be on PATH.
    beside = Path(sys.executable).with_name("rg")
    return str(beside) if beside.exists() else shutil.which("rg")


def list_files(workspace: Path, cap: int = MAX_FILES) -> list[str]:
    """Workspace-relative file paths (POSIX), at most ``cap``, honouring .gitignore when rg exists."""
    rg = _rg_binary()
    if rg:
        try:
            proc = subprocess.run(
                [rg, "--files", "--hidden", "--glob", "!.git"],
                cwd=workspace,
                capture_output=True,
                text=True,
                timeout=5,
                check=False,
            )
            if proc.returncode in (0, 1):  # 1 = no files
                return sorted(proc.stdout.splitlines()[:cap])
        except (OSError, subprocess.TimeoutExpired):
            pass  # fall back to the walk below
    found: list[str] = []
    for root, dirs, files in os.walk(workspace):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        rel_root = Path(root).relative_to(workspace)
        for name in sorted(files):
            found.append((rel_root / name).as_posix())
            if len(found) >= cap:
                return found
    return found


def list_root_files(
    workspace: Path, extra_roots: Iterable[Path], cap: int = MAX_FILES
) -> list[str]:
    """The workspace's files (relative) and then each extra root's (absolute: ``@/lib/x.py``
    resolves there as any tool path does), at most ``cap`` in all."""
    found = list_files(workspace, cap)
    for root in extra_roots:
        if len(found) >= cap:
            break
        found += [(root / rel).as_posix() for rel in list_files(root, cap - len(found))]
    return found


def fuzzy_score(query: str, candidate: str) -> int | None:
    """A score for ``query`` as a subsequence of ``candidate`` (higher is better), or None.

    Consecutive matches and matches in the file's base name score more, so `apppy` finds
    `src/app.py` before `src/apple/pie.py`.
    """
    if not query:
        return 0
    q, c = query.lower(), candidate.lower()
    base_start = c.rfind("/") + 1
    score, pos, prev = 0, 0, -2
    for ch in q:
        idx = c.find(ch, pos)
        if idx < 0:
            return None
        score += 3 if idx == prev + 1 else 1
        if idx >= base_start:
            score += 2
        prev, pos = idx, idx + 1
    return score * 100 - len(candidate)


def fuzzy_filter(query: str, candidates: Iterable[str], limit: int = MAX_SHOWN) -> list[str]:
    scored = [(s, c) for c in candidates if (s := fuzzy_score(query, c)) is not None]
    scored.sort(key=lambda sc: (-sc[0], sc[1]))
    return [c for _, c in scored[:limit]]


class Completer:
    """Completions for the word before the cursor, from the session's registries.

    Args:
        source: the session's commands, participants and tool references
            (``Front.completions``).
        files: workspace-relative paths offered for ``#file:`` (filled in later by the app).
    """

    def __init__(self, source: Completions, files: list[str] | None = None) -> None:
        self.source = source
        self.files: list[str] = files or []

    def complete(self, before_cursor: str) -> tuple[int, list[Completion]]:
        """Offers for the word ending at the cursor.

        Args:
            before_cursor: the input's text up to the cursor.

        Returns:
            (start offset of the word being completed, offers); no offers when nothing fits.
        """
        if quoted := _OPEN_QUOTED_FILE.search(before_cursor):
            query = quoted["double"] if quoted["double"] is not None else quoted["single"]
            return quoted.start(), self._files(query)
        start = max(before_cursor.rfind(" "), before_cursor.rfind("\n")) + 1
        word = before_cursor[start:]
        leading = before_cursor[:start].split()
        if word.startswith("/") and (not leading or (len(leading) == 1 and leading[0][:1] == "@")):
            participant = leading[0][1:] if leading else ""
            return start, self._commands(word[1:], participant)
        if word.startswith("@"):
            # Participants only as the first word (where they route); files anywhere (@path).
            people = self._participants(word[1:]) if not leading else []
            return start, (people + self._mentions(word[1:]))[:MAX_SHOWN]
        if word.startswith("#"):
            return start, self._references(word[1:])
        return start, []

    def _commands(self, prefix: str, participant: str) -> list[Completion]:
        commands = self.source.commands(prefix, participant)
        return [
            Completion(f"/{c.name} ", f"/{c.name}", c.description) for c in commands[:MAX_SHOWN]
        ]

    def _participants(self, prefix: str) -> list[Completion]:
        return [
            Completion(f"@{p.name} ", f"@{p.name}", p.description)
            for p in self.source.participants(prefix)[:MAX_SHOWN]
        ]

    def _mentions(self, query: str) -> list[Completion]:
        offers = []
        for path in fuzzy_filter(query, self.files):
            # A mention ends at whitespace: a path with spaces is offered in the #file: form.
            mention = f"@{path}" if not any(ch.isspace() for ch in path) else None
            written = mention or f"#file:{quote_path(path)}"
            offers.append(Completion(f"{written} ", written, "file"))
        return offers

    def _references(self, query: str) -> list[Completion]:
        if query.startswith("file:"):
            return self._files(query[5:])
        offers = [
            Completion(f"#{name} ", f"#{name}", desc)
            for name, desc in SPECIAL_REFERENCES.items()
            if name.lower().startswith(query.lower())
        ]
        for tool in self.source.tool_references():
            if tool.name.lower().startswith(query.lower()):
                offers.append(
                    Completion(f"#{tool.name} ", f"#{tool.name}", f"tool: {tool.description}")
                )
        if query:
            offers += self._files(query)
        return offers[:MAX_SHOWN]

    def _files(self, query: str) -> list[Completion]:
        offers = []
        for path in fuzzy_filter(query, self.files):
            reference = f"#file:{quote_path(path)}"
            offers.append(Completion(f"{reference} ", reference, "file"))
        return offers
