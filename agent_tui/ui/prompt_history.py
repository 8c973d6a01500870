"""Prompts the user sent in a workspace, kept across sessions for Up/Down recall.

One JSONL file per workspace under state_dir()/history/ (never in the workspace); appending a line
is atomic enough for two app instances, and the file is trimmed to the newest MAX_ENTRIES on load.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from agent_tui.paths import state_dir, workspace_dir_name
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.state_files import move_aside, private_fd, write_failed, write_private

MAX_ENTRIES = 500
logger = logging.getLogger(__name__)


def history_path(workspace: Path) -> Path:
    key = workspace_dir_name(workspace)
    return state_dir() / "history" / f"{key}.jsonl"


def load_history(workspace: Path) -> list[str]:
    """The workspace's earlier prompts, oldest first (unreadable lines are skipped)."""
    path = history_path(workspace)
    try:
        lines = read_text(path, MAX_TEXT_FILE_BYTES, errors="strict").splitlines()
    except FileNotFoundError:
        return []
    except UnicodeDecodeError:
        move_aside(path, "not UTF-8")  # kept for the user; a new history starts
        return []
    except OSError:
        logger.warning("cannot read prompt history %s", path, exc_info=True)
        return []
    prompts: list[str] = []
    for line in lines:
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash: skip it, keep the rest
        if isinstance(value, str) and value:
            prompts.append(value)
    if len(lines) > 2 * MAX_ENTRIES:
        _rewrite(path, prompts[-MAX_ENTRIES:])
    return prompts[-MAX_ENTRIES:]


def append_history(workspace: Path, prompt: str) -> None:
    path = history_path(workspace)
    try:
        with open(
            private_fd(path, append=True), "a", encoding="utf-8"
        ) as fh:  # 0600: prompts hold code
            fh.write(json.dumps(prompt, ensure_ascii=False) + "\n")
    except OSError as exc:
        logger.warning("cannot save prompt history %s", path, exc_info=True)
        write_failed("the prompt history", exc, "earlier prompts of this run are not kept")


def _rewrite(path: Path, prompts: list[str]) -> None:
    try:
        write_private(path, "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in prompts))
    except OSError:
        logger.warning("cannot trim prompt history %s", path, exc_info=True)
