"""Small JSON files in the state dir, shared safely between agent-tui processes.

Every change is a read-modify-write under a file lock (the ``filelock`` package), and the new
content replaces the file atomically (temp file + ``os.replace``): two instances granting at once
both keep their grant, and a crash mid-write never leaves half a file.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

logger = logging.getLogger(__name__)

T = TypeVar("T")
# Long enough for a slow disk, short enough that a stuck lock becomes a visible error.
LOCK_TIMEOUT_S = 10.0


def read_json(path: Path, default: dict[str, Any]) -> dict[str, Any]:
    """The file's JSON object, or ``default`` when it is missing or unreadable (never raises)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return default
    except OSError as exc:
        logger.warning("cannot read %s: %s", path, exc)
        return default
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        logger.warning("%s is not valid JSON; treating it as empty", path)
        return default
    return data if isinstance(data, dict) else default


def update_json(path: Path, default: dict[str, Any], change: Callable[[dict[str, Any]], T]) -> T:
    """Apply ``change`` to the file's JSON object in place, under the lock, and save it atomically.

    Args:
        path: the JSON file (its folder is created if needed).
        default: the content to start from when the file is missing or corrupt.
        change: mutates the dict it is given; its return value is returned.

    Raises:
        filelock.Timeout: another process held the lock for longer than ``LOCK_TIMEOUT_S``.
        OSError: the state dir cannot be written.
    """
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S):
        data = _read_for_update(path, default)
        result = change(data)
        _write_atomic(path, data)
    return result


def _read_for_update(path: Path, default: dict[str, Any]) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return copy.deepcopy(default)
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            return data
    except json.JSONDecodeError:
        pass
    # Keep the damaged file for the user instead of silently overwriting what it held.
    aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
    os.replace(path, aside)
    logger.warning("%s was not valid JSON; moved it to %s and started afresh", path, aside)
    return copy.deepcopy(default)


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    import tempfile  # only writers pay for it

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)  # grants say what may run unasked: only the user should edit them
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
