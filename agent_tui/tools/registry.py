"""The tool registry: manifests (static, cheap) and tool classes (imported on first use).

Built-ins register through the same call MCP servers and user-defined tools use. Listing tools and
building the request's tool schemas never imports a tool's module.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ConfigError
from agent_tui.providers.base import ToolSpec
from agent_tui.resources import data_dir
from agent_tui.tools.base import Manifest, Tool

ToolFactory = Callable[[Manifest], Tool]

# name -> "module:Class"; imported only when the tool is first prepared or invoked.
BUILTIN_TOOLS: dict[str, str] = {
    "read_file": "agent_tui.tools.read_file:ReadFileTool",
    "list_dir": "agent_tui.tools.list_dir:ListDirTool",
    "file_search": "agent_tui.tools.file_search:FileSearchTool",
    "grep_search": "agent_tui.tools.grep_search:GrepSearchTool",
    "create_file": "agent_tui.tools.create_file:CreateFileTool",
    "replace_string_in_file": "agent_tui.tools.replace_string:ReplaceStringTool",
    "apply_patch": "agent_tui.tools.apply_patch:ApplyPatchTool",
    "run_in_terminal": "agent_tui.tools.terminal:RunInTerminalTool",
    "get_terminal_output": "agent_tui.tools.terminal:GetTerminalOutputTool",
    "kill_terminal": "agent_tui.tools.terminal:KillTerminalTool",
    "fetch_webpage": "agent_tui.tools.fetch_webpage:FetchWebpageTool",
    "get_changed_files": "agent_tui.tools.changed_files:GetChangedFilesTool",
    "tool_search": "agent_tui.toolsearch.tool:ToolSearchTool",
    "read_skill": "agent_tui.skills.tool:ReadSkillTool",
    "run_agent": "agent_tui.subagents.tool:RunAgentTool",
    "todo": "agent_tui.tools.todo:TodoTool",
    "web_search": "agent_tui.tools.web_search:WebSearchTool",
}
# Built-ins offered only when the config asks for them (build.offer_optional_tools).
OPTIONAL_TOOLS = frozenset({"web_search"})

MAX_TOOLS = 128  # the most tools an API request may carry (OpenAI's limit; the picker shows it)


def _lazy_factory(target: str) -> ToolFactory:
    def build(manifest: Manifest) -> Tool:
        module_name, _, class_name = target.partition(":")
        cls = getattr(importlib.import_module(module_name), class_name)
        tool: Tool = cls(manifest)
        return tool

    return build


@dataclass
class _Entry:
    """A registered tool: its manifest, its factory, and the instance once made."""

    manifest: Manifest
    factory: ToolFactory
    instance: Tool | None = None


class ToolRegistry:
    """All known tools, and which of them are enabled."""

    def __init__(self) -> None:
        self._entries: dict[str, _Entry] = {}
        self.disabled: set[str] = set()

    def register(self, manifest: Manifest, factory: ToolFactory) -> None:
        self._entries[manifest.name] = _Entry(manifest, factory)

    def unregister(self, name: str) -> None:
        self._entries.pop(name, None)

    def unregister_source(self, source: str) -> None:
        for name in [n for n, e in self._entries.items() if e.manifest.source == source]:
            del self._entries[name]

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def manifest(self, name: str) -> Manifest:
        return self._entries[name].manifest

    def manifests(self) -> list[Manifest]:
        return [e.manifest for e in self._entries.values()]

    def get(self, name: str) -> Tool:
        entry = self._entries[name]
        if entry.instance is None:
            entry.instance = entry.factory(entry.manifest)
        return entry.instance

    def by_reference_name(self, ref: str) -> Manifest | None:
        for entry in self._entries.values():
            if entry.manifest.tool_reference_name == ref or entry.manifest.name == ref:
                return entry.manifest
        return None

    def enabled(self, only: Iterable[str] | None = None) -> list[Manifest]:
        """Enabled tools (optionally only those named), in registration order."""
        allowed = set(only) if only is not None else None
        return [
            e.manifest
            for name, e in self._entries.items()
            if name not in self.disabled and (allowed is None or name in allowed)
        ]

    def specs(self, only: Iterable[str] | None = None) -> list[ToolSpec]:
        return [ToolSpec(m.name, m.model_description, m.input_schema) for m in self.enabled(only)][
            :MAX_TOOLS
        ]


def load_manifest(path: Path, *, source: str = "built-in") -> Manifest:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Manifest.from_json(data, source=source)
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"bad tool manifest: {exc}", file=str(path)) from exc


def builtin_registry() -> ToolRegistry:
    """A registry holding every built-in tool whose manifest is shipped in ``tools/``, but the
    optional ones (``set_offered`` adds those the config asks for)."""
    registry = ToolRegistry()
    for name in [n for n in BUILTIN_TOOLS if n not in OPTIONAL_TOOLS]:
        register_builtin(registry, name)
    return registry


def register_builtin(registry: ToolRegistry, name: str) -> None:
    """Register the built-in ``name`` (nothing if its manifest is not shipped)."""
    path = data_dir("tools") / f"{name}.json"
    if path.exists():
        registry.register(load_manifest(path), _lazy_factory(BUILTIN_TOOLS[name]))


def set_offered(registry: ToolRegistry, name: str, offered: bool) -> None:
    """Register or unregister an optional built-in, as the config now says."""
    if offered and name not in registry:
        register_builtin(registry, name)
    elif not offered:
        registry.unregister(name)
