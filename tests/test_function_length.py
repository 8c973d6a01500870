"""Functions stay short enough to read as named phases (CONVENTIONS: a small, linear loop).

A function over MAX_LINES (docstring included) fails: split it into phases, each a function that
says what it does. KNOWN_LONG stays empty; it only exists so that a change of the limit can list
what it leaves over, and then only shrink.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 50

# Long functions allowed for now ("path:name" -> lines today); the list only shrinks, and is
# empty: a function over the limit is split into named phases instead.
KNOWN_LONG: dict[str, int] = {}


def _lengths() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted((ROOT / "agent_tui").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno:
                key = f"{path.relative_to(ROOT)}:{node.name}"
                found[key] = max(found.get(key, 0), node.end_lineno - node.lineno + 1)
    return found


def test_no_function_is_longer_than_the_limit() -> None:
    too_long = [
        f"{name}: {lines} lines"
        for name, lines in sorted(_lengths().items())
        if lines > MAX_LINES and lines > KNOWN_LONG.get(name, 0)
    ]
    assert not too_long, f"over {MAX_LINES} lines (split into named phases):\n" + "\n".join(
        too_long
    )


def test_the_list_of_known_long_functions_only_shrinks() -> None:
    lengths = _lengths()
    stale = [name for name in KNOWN_LONG if lengths.get(name, 0) <= MAX_LINES]
    assert not stale, "now short enough: take these off KNOWN_LONG:\n" + "\n".join(stale)
