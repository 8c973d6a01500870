"""The tool picker's choices, persisted per workspace in the user's state dir (never the repo).

``state_dir()/tool_picker.json`` maps a workspace's real path to ``{"disabled": [tool names]}``.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from agent_tui.paths import state_dir

logger = logging.getLogger(__name__)

FILE_NAME = "tool_picker.json"


def _prefs_path() -> Path:
    return state_dir() / FILE_NAME


def _read_all() -> dict[str, dict[str, list[str]]]:
    path = _prefs_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        # A corrupt file must not stop the app: start from "everything enabled" and say so.
        logger.warning("ignoring unreadable %s: %s", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def load_disabled(workspace: Path) -> set[str]:
    """The tools disabled for ``workspace`` (empty when never saved)."""
    entry = _read_all().get(str(workspace.resolve()), {})
    names = entry.get("disabled", []) if isinstance(entry, dict) else []
    return {n for n in names if isinstance(n, str)}


def save_disabled(workspace: Path, disabled: set[str]) -> None:
    """Persist the disabled tools of ``workspace`` (atomically: temp file + rename)."""
    data = _read_all()
    data[str(workspace.resolve())] = {"disabled": sorted(disabled)}
    path = _prefs_path()
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)
