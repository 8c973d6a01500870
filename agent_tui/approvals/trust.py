"""Workspace trust (DESIGN §5): a folder's own ``.agentrc`` approval settings and MCP servers apply
only once the user trusts it. Stored in ``trust.json`` in the state dir, keyed by real path.

Trusting a folder trusts the folders inside it, unless one of them was explicitly distrusted
(the nearest explicit answer wins), as VS Code does for parent folders.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.approvals.grants import workspace_key
from agent_tui.approvals.store import read_json, update_json

FILE_NAME = "trust.json"
_EMPTY: dict[str, Any] = {"version": 1, "folders": {}}


def _path(state_dir: Path | None) -> Path:
    if state_dir is None:
        from agent_tui.paths import state_dir as default_state_dir

        state_dir = default_state_dir()
    return state_dir / FILE_NAME


def trust_answer(workspace: Path, state_dir: Path | None = None) -> bool | None:
    """The user's answer for this folder or its nearest parent with one; None if never asked."""
    folders = read_json(_path(state_dir), _EMPTY).get("folders", {})
    if not isinstance(folders, dict):
        return None
    here = Path(workspace_key(workspace))
    for folder in (here, *here.parents):
        entry = folders.get(str(folder))
        if isinstance(entry, dict) and isinstance(entry.get("trusted"), bool):
            return bool(entry["trusted"])
    return None


def is_trusted(workspace: Path, state_dir: Path | None = None) -> bool:
    """Whether the user trusts this folder (or a parent of it)."""
    return trust_answer(workspace, state_dir) is True


def set_trusted(workspace: Path, trusted: bool, state_dir: Path | None = None) -> None:
    """Record the user's answer for this folder.

    Raises:
        OSError, filelock.Timeout: the state file cannot be written.
    """
    key = workspace_key(workspace)

    def change(data: dict[str, Any]) -> None:
        from datetime import UTC, datetime  # here: ~1 ms of every start at the top

        folders = data.get("folders")
        if not isinstance(folders, dict):
            folders = data["folders"] = {}
        folders[key] = {"trusted": trusted, "at": datetime.now(UTC).isoformat(timespec="seconds")}

    update_json(_path(state_dir), _EMPTY, change)
