"""What the model is told about a file's problems: ``path:line:col severity message (source)``.

A server's messages come from a process the workspace controls: each is made one visible line
(``text_safety.one_line``) and cut to ``MAX_MESSAGE`` characters, and a report holds at most
``MAX_LINES`` lines. Only errors and warnings are reported (hints and information are noise here).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from lsprotocol import types

MAX_LINES = 20
MAX_MESSAGE = 300
MAX_SOURCE = 40
_SEVERITY = {1: "error", 2: "warning"}  # LSP's DiagnosticSeverity; no severity: an error


@dataclass(frozen=True)
class Problem:
    """One error or warning in one file (line and column 1-based, as editors show them)."""

    path: str  # workspace-relative
    line: int
    column: int
    severity: str  # "error" | "warning"
    message: str
    source: str = ""
    code: str = ""

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What stays the same when an edit elsewhere moves the problem to another line."""
        return (self.severity, self.source, self.code, self.message)

    def line_text(self) -> str:
        where = f"{self.path}:{self.line}:{self.column}"
        source = f" ({self.source})" if self.source else ""
        return f"{where} {self.severity} {self.message}{source}"


def _clean(text: str, limit: int) -> str:
    # Pyright and ruff write multi-line messages: one line here, each problem on its own.
    text = one_line(" ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def problems_from(path: str, diagnostics: Iterable[types.Diagnostic]) -> list[Problem]:
    """The errors and warnings among a server's diagnostics for ``path``, in file order."""
    found = []
    for diag in diagnostics:
        severity = _SEVERITY.get(int(diag.severity or 1))
        if severity is None:
            continue
        code = "" if diag.code is None else _clean(str(diag.code), MAX_SOURCE)
        found.append(
            Problem(
                path,
                diag.range.start.line + 1,
                diag.range.start.character + 1,
                severity,
                _clean(diag.message, MAX_MESSAGE),
                _clean(diag.source or "", MAX_SOURCE),
                code,
            )
        )
    return sorted(found, key=lambda p: (p.line, p.column))


def added(before: Iterable[Problem], after: Iterable[Problem]) -> list[Problem]:
    """The problems of ``after`` that ``before`` did not have (by message, not by line: an edit
    above a problem moves it without making it new)."""
    left = Counter(p.key for p in before)
    new = []
    for problem in after:
        if left[problem.key] > 0:
            left[problem.key] -= 1
        else:
            new.append(problem)
    return new


def render(problems: list[Problem], *, limit: int = MAX_LINES) -> str:
    """The lines, errors first, at most ``limit`` of them and a count of the rest."""
    ordered = sorted(problems, key=lambda p: (p.severity != "error", p.path, p.line, p.column))
    lines = [p.line_text() for p in ordered[:limit]]
    if len(ordered) > limit:
        lines.append(f"… and {len(ordered) - limit} more")
    return "\n".join(lines)
