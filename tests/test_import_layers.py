"""No import runs back up the layers, and no two packages import each other (ARCHITECTURE.md: Layers).

The graph is read with ``ast`` from every module of ``agent_tui``, with the imports inside functions
and under ``TYPE_CHECKING`` too: the code imports lazily to keep ``-p`` start-up cheap, and a lazy
import is still a dependency. ``tests/test_layering.py`` keeps Textual out of the core.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "agent_tui"

# Bottom to top. A module may import its own layer or any below it, never one above. An entry is a
# top-level module or package of agent_tui ("tools"), or one module of a package that sits in a
# lower layer than the rest of its package ("tools.base"): the longest entry naming a module wins.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "base",  # no state of the session: types, checks, files, config
        [
            "agent_tui",  # the package's own __init__ (the version)
            "errors",
            "state_files",
            "paths",
            "text_safety",
            "lazy_regex",
            "safe_read",
            "plural",
            "durations",
            "key_env",
            "child_pipes",
            "status_line",
            "schema_check",
            "config_schema",
            "config_gate",
            "config",
            "conversation",
            "images",
            "identity_cache",
            "resources",
            "logs",
            "subreaper",
            "exit_gc",
            "start_gc",
            "code_cache",
            "front_matter",
            "modes",
        ],
    ),
    ("providers", ["providers"]),
    (
        # What every package that reasons about tool calls needs: the Tool protocol and its
        # results, the workspace path checks, the hardened git config and the terminal environment.
        "tool contract",
        [
            "tools.base",
            "tools.workspace_paths",
            "tools.fs_util",
            "tools.fs_args",
            "tools.git_config",
            "tools.terminal_env",
            "tools.file_access",
            "tools.client_terminal",
        ],
    ),
    ("approvals", ["approvals"]),
    (
        "events",
        ["events", "actions"],
    ),  # what the core says, and what a command asks a front end to do
    ("sandbox", ["sandbox"]),
    ("tools", ["tools", "toolsearch"]),  # toolsearch: which tools a request offers, tool_search
    ("services", ["checkpoints", "mcp", "lsp", "skills", "hooks", "sessions", "subagents.loader"]),
    # The registries' records (what a command or a participant is) sit below the agent, which
    # dispatches through them; the built-in commands and participants sit above it, since /help
    # and /context read the agent's state.
    ("registries", ["commands.registry", "participants.registry", "commands.prompt_files"]),
    ("agent", ["agent", "subagents"]),
    ("built-ins", ["commands", "participants"]),
    ("assembly", ["registries", "build", "mcp.session"]),
    # What a front end holds (front.Front) and the vocabulary it speaks: above the assembly, whose
    # apply_trust it calls; below every front end (tests/test_door_imports.py checks ui/ uses it).
    ("door", ["front"]),
    (
        "front ends",
        [
            "acp",
            "headless",
            "headless_prompt",
            "headless_wait",
            "ui",
            "cli",
            "launch",
            "early_screen",
            "__main__",
            "mcp.cli",
            "mcp.cli_edit",
            "mcp.cli_get",
            "sandbox.cli",
            "sessions.export_cli",
        ],
    ),
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _targets(module: str, node: ast.Import | ast.ImportFrom, is_package: bool) -> list[str]:
    """The agent_tui modules an import statement loads (``from pkg import mod`` names mod)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        parts = module.split(".")[: None if is_package else -1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join([*parts, node.module] if node.module else parts)
    else:
        base = node.module or ""
    return [
        f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
        for alias in node.names
    ]


def import_edges() -> list[tuple[str, int, str]]:
    """Every (importer, line, imported) pair inside agent_tui, lazy imports included."""
    edges = []
    for module, path in sorted(MODULES.items()):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(module, node, path.name == "__init__.py"):
                    if target == "agent_tui" or target.startswith("agent_tui."):
                        edges.append((module, node.lineno, target))
    return edges


def unit(module: str) -> tuple[int, str]:
    """(layer index, table entry) of a module: the longest entry naming it or a package above it."""
    name = module.removeprefix("agent_tui.") if module != "agent_tui" else "agent_tui"
    best: tuple[int, str] | None = None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            if (name == entry or name.startswith(entry + ".")) and (
                best is None or len(entry) > len(best[1])
            ):
                best = (index, entry)
    assert best is not None, f"{module} is in no layer: add it to LAYERS (and ARCHITECTURE.md)"
    return best


def test_every_module_has_a_layer() -> None:
    for module in MODULES:
        unit(module)


def test_no_import_runs_up_the_layers() -> None:
    upward = []
    for module, line, target in import_edges():
        (low, _), (high, _) = unit(module), unit(target)
        if high > low:
            upward.append(
                f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}"
                f" ({LAYERS[low][0]} -> {LAYERS[high][0]})"
            )
    assert not upward, "imports up the layers:\n" + "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_packages_import_each_other() -> None:
    """Over the LAYERS entries (packages, or the modules a package lends to a lower layer)."""
    graph: dict[str, set[str]] = defaultdict(set)
    where: dict[tuple[str, str], str] = {}
    for module, line, target in import_edges():
        a, b = unit(module)[1], unit(target)[1]
        graph[a]
        graph[b]
        if a != b:
            graph[a].add(b)
            where.setdefault((a, b), f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}")
    cycles = [
        [where[(a, b)] for a in component for b in component if (a, b) in where]
        for component in _cycles(graph)
    ]
    assert not cycles, "package cycles:\n" + "\n\n".join("\n".join(c) for c in cycles)


def test_the_layer_table_is_written_in_architecture_md() -> None:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    missing = [name for name, _ in LAYERS if f"**{name}**" not in text]
    assert missing == []
