"""What the sandbox stopped during one command, in words for the card, the model and the dialog.

Two sources: the proxy's refused domains (exact), and writes the kernel refused with EROFS, read
from the command's output (every program says "Read-only file system" with the path in its own
way: coreutils, bash redirections, Python, Node). Protected paths a command created are found on
disk afterwards (``bwrap.created_protected``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from agent_tui.lazy_regex import lazy_pattern

# A path in quotes, or a bare absolute/home path, on a line that says EROFS.
_EROFS = lazy_pattern(r"read-only file system", re.IGNORECASE)
_QUOTED = lazy_pattern(r"""['"`‘’]([^'"`‘’\n]+)['"`‘’]""")
_BARE = lazy_pattern(r"(?<![\w.])((?:~|/)[^\s:'\"`,)]+)")


@dataclass(frozen=True)
class Block:
    """One thing the sandbox stopped.

    Attributes:
        kind: ``write`` (a path outside the writable folders), ``protected`` (a protected path
            the command created, removed again) or ``network`` (a domain not allowed).
        target: the path or domain.
    """

    kind: str
    target: str

    def describe(self) -> str:
        if self.kind == "network":
            return f"network: {self.target} not allowed"
        if self.kind == "protected":
            return f"blocked by the sandbox: created protected path {self.target} (removed)"
        return f"blocked by the sandbox: write to {self.target}"


def _paths(text: str) -> list[str]:
    return [m.group(1) for m in _QUOTED().finditer(text)] or [
        m.group(1) for m in _BARE().finditer(text)
    ]


def write_blocks(output: str, home: Path | None = None) -> list[Block]:
    """The paths a command's output says it could not write (EROFS), at most five, in order."""
    found: list[str] = []
    home_text = str(home or Path.home())
    for line in output.splitlines():
        if not _EROFS().search(line):
            continue
        # The path is the one nearest before the phrase ("bash: line 2: /x: Read-only file
        # system": not /bin/bash), or after it for Python ("…: '/x'").
        before, _, after = line.partition(_EROFS().search(line).group(0))  # type: ignore[union-attr]
        candidates = _paths(before)[::-1] + _paths(after)
        path = next((c for c in candidates if "/" in c or c.startswith("~")), "")
        if not path:
            path = "a path outside the writable folders"
        elif home_text != "/" and path.startswith(home_text + "/"):
            path = "~" + path[len(home_text) :]
        if path not in found:
            found.append(path)
        if len(found) >= 5:
            break
    return [Block("write", p) for p in found]


def summary(blocks: list[Block]) -> str:
    """One paragraph for the model: what was stopped, and why."""
    lines = [b.describe() for b in blocks]
    return (
        "The sandbox stopped part of this command: "
        + "; ".join(lines)
        + ". Commands may write only inside the workspace (and added folders) and the temp dir, "
        "never protected paths (.git/config, .git/hooks, .agentrc, .agents/, .claude/, "
        ".mcp.json, .vscode/), and reach only allowed domains through the proxy."
    )
