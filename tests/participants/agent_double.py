"""A test double of the caller of plan_turn: an object with the attributes the Agent has.

The registries, config, tools and session inside it are the real ones; only the Agent shell is
replaced, because the loop (another work stream) is not what these tests are about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.commands.registry import CommandRegistry
from agent_tui.config import Config, load_config
from agent_tui.conversation import Conversation
from agent_tui.lsp.manager import LspManager
from agent_tui.participants.registry import ParticipantRegistry
from agent_tui.registries import default_registries
from agent_tui.tools.base import Manifest, SessionState, Tool
from agent_tui.tools.registry import ToolRegistry, builtin_registry

# DESIGN §4: the built-in tools and their kinds (manifests not shipped yet are stood in for).
DESIGN_TOOLS = {
    "read_file": "read",
    "list_dir": "read",
    "file_search": "read",
    "grep_search": "read",
    "create_file": "edit",
    "replace_string_in_file": "edit",
    "apply_patch": "edit",
    "run_in_terminal": "execute",
    "get_terminal_output": "read",
    "kill_terminal": "execute",
    "fetch_webpage": "fetch",
    "get_changed_files": "read",
}
READ_ONLY_TOOLS = {"read_file", "list_dir", "file_search", "grep_search", "get_changed_files"}


def _unused_factory(manifest: Manifest) -> Tool:
    raise AssertionError(f"planning a turn must not build the tool {manifest.name}")


def make_tools() -> ToolRegistry:
    """The shipped manifests, plus stand-ins for DESIGN tools whose manifest is not shipped yet."""
    tools = builtin_registry()
    for name, kind in DESIGN_TOOLS.items():
        if name not in tools:
            tools.register(
                Manifest(name, name, name, name, f"{name} tool", {"type": "object"}, kind),  # type: ignore[arg-type]
                _unused_factory,
            )
    return tools


@dataclass
class DepsDouble:
    config: Config
    tools: ToolRegistry
    commands: CommandRegistry
    participants: ParticipantRegistry
    workspace: Path
    session: SessionState = field(default_factory=SessionState)
    lsp: LspManager | None = None  # /help lists the language servers


@dataclass
class AgentDouble:
    deps: DepsDouble
    conversation: Conversation = field(default_factory=Conversation)


def make_agent(workspace: Path, *, agentrc: str | None = None, **config: Any) -> AgentDouble:
    """An agent double over a real workspace (``agentrc`` is written to its .agentrc)."""
    if agentrc is not None:
        (workspace / ".agentrc").write_text(agentrc, encoding="utf-8")
    loaded = load_config(
        workspace, env={}, user_file=workspace.parent / "user.agentrc", trusted=True, **config
    )
    commands, participants = default_registries(loaded)
    return AgentDouble(DepsDouble(loaded, make_tools(), commands, participants, workspace))


def isolated_workspace(tmp_path: Path, monkeypatch: Any) -> Path:
    """A workspace folder, with HOME and the state dir moved into tmp_path."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("AGENT_TUI_USER_CONFIG", raising=False)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace
