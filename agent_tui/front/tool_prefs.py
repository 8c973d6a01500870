"""The tool picker's choices, persisted per workspace in the user's state dir (never the repo).

``state_dir()/tool_picker.json`` maps a workspace's real path to ``{"disabled": [tool names]}``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from agent_tui.approvals.store import read_json, update_json
from agent_tui.paths import state_dir

logger = logging.getLogger(__name__)

FILE_NAME = "tool_picker.json"


def _prefs_path() -> Path:
    return state_dir() / FILE_NAME


def _read_all() -> dict[str, dict[str, list[str]]]:
    # A damaged file is moved aside with a notice (store.read_json): start from "all enabled".
    return read_json(_prefs_path(), {})


def load_disabled(workspace: Path) -> set[str]:
    """The tools disabled for ``workspace`` (empty when never saved)."""
    entry = _read_all().get(str(workspace.resolve()), {})
    names = entry.get("disabled", []) if isinstance(entry, dict) else []
    return {n for n in names if isinstance(n, str)} if isinstance(names, list) else set()


def save_disabled(workspace: Path, disabled: set[str]) -> None:
    """Persist the disabled tools of ``workspace`` (atomically, 0600, under the state lock).

    Raises:
        OSError, filelock.Timeout: the state dir cannot be written.
    """

    def change(data: dict[str, Any]) -> None:
        data[str(workspace.resolve())] = {"disabled": sorted(disabled)}

    update_json(_prefs_path(), {}, change)
