"""The agent core never imports a UI library (CONVENTIONS: shape 1), and cheap paths stay cheap."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ["agent", "tools", "approvals", "providers", "mcp", "sandbox"]
UI_LIBS = {"textual", "prompt_toolkit"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


@pytest.mark.parametrize("package", CORE)
def test_core_package_never_imports_a_ui_library(package: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)} imports {sorted(_imports(path) & UI_LIBS)}"
        for path in sorted((ROOT / "agent_tui" / package).rglob("*.py"))
        if _imports(path) & UI_LIBS
    ]
    assert offenders == []


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    return {m.split(".")[0] for m in out}


def test_version_path_imports_nothing_heavy() -> None:
    loaded = _modules_after(
        "from agent_tui import cli\ntry:\n    cli.main(['--version'])\nexcept SystemExit:\n    pass"
    )
    assert not loaded & {"httpx", "jsonschema", "textual", "anthropic", "openai", "mcp", "git"}


def test_headless_path_does_not_import_ui_or_sdks() -> None:
    loaded = _modules_after("from agent_tui import headless, build\nimport agent_tui.agent.loop")
    assert not loaded & {"textual", "prompt_toolkit", "anthropic", "openai", "mcp", "git"}


def _internal_imports(path: Path) -> set[str]:
    """The ``agent_tui.X`` packages and modules ``path`` imports (absolute imports only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        names = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module]
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
            else []
        )
        found.update(n.split(".")[1] for n in names if n.startswith("agent_tui.") and "." in n)
    return found


@pytest.mark.parametrize("package", ["providers", "tools"])
def test_lower_layers_never_import_the_agent(package: str) -> None:
    """Layers read cli -> ui/headless -> agent -> providers, tools -> conversation types: the
    conversation types live below both (agent_tui/conversation.py), so nothing lower needs agent/."""
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "agent_tui" / package).rglob("*.py"))
        if "agent" in _internal_imports(path)
    ]
    assert offenders == []
