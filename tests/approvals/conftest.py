"""Shared fixtures: an isolated HOME and state dir, a workspace, and engine/manifest builders."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.config import load_config
from agent_tui.resources import data_dir
from agent_tui.tools.base import Manifest

KINDS = {
    "read_file": "read",
    "list_dir": "read",
    "grep_search": "read",
    "create_file": "edit",
    "replace_string_in_file": "edit",
    "run_in_terminal": "execute",
    "kill_terminal": "execute",
    "fetch_webpage": "fetch",
}


def manifest(name: str, kind: str | None = None, *, read_only_hint: bool = False) -> Manifest:
    """The real built-in manifest of that name, or an MCP-style tool of ``kind``."""
    builtin = data_dir("tools") / f"{name}.json"
    if kind is None and builtin.is_file():
        return Manifest.from_json(json.loads(builtin.read_text()))
    return Manifest(
        name=name,
        display_name=name,
        tool_reference_name=name,
        user_description="",
        model_description=f"{name} for tests",
        input_schema={"type": "object"},
        kind=kind or KINDS[name],  # type: ignore[arg-type]
        read_only_hint=read_only_hint,
        source="mcp:srv" if name.startswith("mcp_") else "built-in",
    )


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated state dir and HOME (no real ~/.agentrc or grants leak in)."""
    home = tmp_path / "home"
    home.mkdir()
    state_dir = tmp_path / "state"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(state_dir))
    monkeypatch.delenv("AGENT_TUI_USER_CONFIG", raising=False)
    return state_dir


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    return ws


EngineFactory = Callable[..., ApprovalEngine]


@pytest.fixture
def make_engine(state: Path, workspace: Path) -> EngineFactory:
    """Build an engine from user/workspace .agentrc texts, as the CLI would."""

    def build(
        user: str = "",
        ws_rc: str = "",
        *,
        trusted: bool = True,
        **flags: Any,
    ) -> ApprovalEngine:
        user_file = Path.home() / ".agentrc"
        if user:
            user_file.write_text(user)
        if ws_rc:
            (workspace / ".agentrc").write_text(ws_rc)
        config = load_config(workspace, env={}, trusted=trusted, user_file=user_file)
        return ApprovalEngine(config, workspace, state_dir=state, **flags)

    return build
