"""Keeping the sessions folder bounded: the newest N per workspace, or D days.

``[sessions] keep`` (default 200) and ``keep_days`` (default 0: no age limit) come from the user's
``~/.agentrc`` only: a cloned repository must not be able to delete the user's history.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

logger = logging.getLogger(__name__)

DEFAULT_KEEP = 200
DAY_S = 86400.0


def prune_sessions(
    folder: Path, keep: int = DEFAULT_KEEP, keep_days: float = 0, *, spare: str = ""
) -> list[Path]:
    """Delete a workspace's sessions beyond the newest ``keep`` or older than ``keep_days``.

    Args:
        folder: the workspace's sessions folder.
        keep: how many to keep (the most recently written).
        keep_days: delete sessions not written for this many days (0: no age limit).
        spare: a session id never deleted (the one being resumed).

    Returns:
        The files deleted.
    """
    try:
        stamped = [(p.stat().st_mtime, p) for p in folder.glob("*.jsonl")]
    except OSError:
        return []
    stamped.sort(key=lambda sp: (sp[0], sp[1].name), reverse=True)
    cutoff = time.time() - keep_days * DAY_S if keep_days > 0 else None
    removed: list[Path] = []
    for rank, (mtime, path) in enumerate(stamped):
        if path.stem == spare:
            continue
        if rank >= keep or (cutoff is not None and mtime < cutoff):
            try:
                path.unlink()
            except OSError as exc:
                logger.warning("cannot delete old session %s: %s", path, exc)
                continue
            removed.append(path)
    return removed
