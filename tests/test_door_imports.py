"""The app reaches the core only through the door (ARCHITECTURE.md: "A front end").

Read with ``ast`` from every module of ``agent_tui/ui``, imports inside functions and under
``TYPE_CHECKING`` included: ``ui/`` may import from the core only the modules in ``DOOR`` (the
door, the events and actions it speaks in, and helpers of the base layer that know nothing of a
session), and never reads the attributes that lead past the door into the agent.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UI = ROOT / "agent_tui" / "ui"
ACP = ROOT / "agent_tui" / "acp"  # the editors' front end (agent-tui acp) holds the same door
FRONT_ENDS = (UI, ACP)

# What a front end may import from the core, and why. An entry covers its submodules too.
DOOR: dict[str, str] = {
    "agent_tui.front": "the door: Front, UserInput, the views and the vocabulary (front.types)",
    "agent_tui.events": "what the core says, questions included",
    "agent_tui.actions": "what a command asks the front end to do",
    "agent_tui.conversation": "messages and their blocks (value types; /copy reads them)",
    "agent_tui.errors": "the exception tree, to catch what the door raises",
    "agent_tui.modes": "the Mode enum (the door's cycle_mode and leave_plan speak it)",
    "agent_tui.text_safety": "control characters made visible: every string shown",
    "agent_tui.durations": "elapsed and waiting times in words",
    "agent_tui.plural": "'3 files'",
    "agent_tui.images": "reading a pasted image file",
    "agent_tui.paths": "the state dir, where the app keeps its prompt history",
    "agent_tui.state_files": "private, atomic writes to the state dir",
    "agent_tui.safe_read": "files the app reads on its own (history, the .agentrc it quotes)",
    "agent_tui.__version__": "the version a front end reports (ACP's agentInfo)",
    "agent_tui.code_cache": "start-up: the app keeps what its first screen compiled",
    "agent_tui.early_screen": "start-up: the screen drawn before the app, and the keys typed on it",
}
# Attributes that lead past the door: the agent's parts, its recorder, the agent a Front wraps.
PAST_THE_DOOR = {"deps", "recorder", "_agent"}


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The agent_tui modules (or module.name pairs) an import statement names."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    assert node.level == 0, "ui/ imports absolutely (relative imports would hide from this test)"
    base = node.module or ""
    return [f"{base}.{alias.name}" for alias in node.names]


def _allowed(target: str) -> bool:
    return any(target == entry or target.startswith(entry + ".") for entry in DOOR)


def ui_modules() -> list[Path]:
    """Every module of every front end that holds the door (``ui/``, ``acp/``)."""
    return sorted(path for root in FRONT_ENDS for path in root.rglob("*.py"))


def test_ui_imports_from_the_core_only_through_the_door() -> None:
    found = []
    for path in ui_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _imported(node):
                own = next(r for r in FRONT_ENDS if path.is_relative_to(r))
                home = f"agent_tui.{own.name}"
                inside = target.startswith("agent_tui.") and not (
                    target == home or target.startswith(home + ".")
                )
                if inside and not _allowed(target):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} imports {target}")
    assert found == [], "ui/ goes past the door:\n" + "\n".join(found)


def test_ui_never_reads_the_agents_parts() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} reads .{node.attr}"
        for path in ui_modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in PAST_THE_DOOR
    ]
    assert found == [], "ui/ reaches into the agent:\n" + "\n".join(found)


def test_headless_never_reads_the_agents_parts() -> None:
    """``-p`` stays on the core's own door (``agent/front.py``: ``submit`` and a few questions it
    answers) rather than ``agent_tui.front``, whose import would cost its start-up; it reads no
    part of the agent either."""
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno} reads .{node.attr}"
        for path in sorted((ROOT / "agent_tui").glob("headless*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr in PAST_THE_DOOR
    ]
    assert found == [], "headless reaches into the agent:\n" + "\n".join(found)


def test_the_check_sees_what_it_forbids(tmp_path: Path) -> None:
    """The walk finds a lazy import under TYPE_CHECKING and a ``.deps`` inside a function."""
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from agent_tui.mcp.manager import McpManager\n"
        "def f(app):\n"
        "    from agent_tui import build\n"
        "    return app.front._agent.deps.tools\n"
    )
    tree = ast.parse(source)
    imports = [t for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for t in _imported(n)]
    assert [t for t in imports if t.startswith("agent_tui.") and not _allowed(t)] == [
        "agent_tui.mcp.manager.McpManager",
        "agent_tui.build",
    ]
    attrs = [n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)]
    assert PAST_THE_DOOR & set(attrs) == {"deps", "_agent"}


def test_the_door_is_written_in_architecture_md() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [entry for entry in DOOR if f"`{entry.removeprefix('agent_tui.')}" not in text]
    assert missing == []
