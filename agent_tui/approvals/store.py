"""Small JSON files in the state dir, shared safely between agent-tui processes.

Every change is a read-modify-write under a file lock (the ``filelock`` package), and the new
content replaces the file atomically (temp file + ``os.replace``): two instances granting at once
both keep their grant, and a crash mid-write never leaves half a file.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_bytes
from agent_tui.state_files import private_dir, write_private

logger = logging.getLogger(__name__)

T = TypeVar("T")
# Long enough for a slow disk, short enough that a stuck lock becomes a visible error.
LOCK_TIMEOUT_S = 10.0


def read_json(path: Path, default: dict[str, Any]) -> dict[str, Any]:
    """The file's JSON object, or ``default`` when it is missing, unreadable or damaged.

    Never raises. A damaged file (not UTF-8, not JSON, not an object, or a key of ``default``
    holding another type, such as ``"grants": 5``) is moved aside with a notice
    (``state_files.move_aside``).
    """
    try:
        raw = read_bytes(path, MAX_TEXT_FILE_BYTES)
    except FileNotFoundError:
        return copy.deepcopy(default)
    except OSError as exc:
        logger.warning("cannot read %s: %s", path, exc)
        return copy.deepcopy(default)
    data, problem = _decode(raw, default)
    if problem is not None:
        from agent_tui.state_files import move_aside

        move_aside(path, problem)
        return copy.deepcopy(default)
    return data


def _decode(raw: bytes, default: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The object in ``raw`` and None, or ``default`` and what is wrong with it."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return default, "not UTF-8"
    except json.JSONDecodeError as exc:
        return default, f"not valid JSON: {exc.msg} at line {exc.lineno}"
    if not isinstance(data, dict):
        return default, f"a JSON {type(data).__name__} where an object belongs"
    for key, value in default.items():
        if key in data and not isinstance(data[key], type(value)):
            return default, f"{key!r} is {type(data[key]).__name__}, not {type(value).__name__}"
    return data, None


def update_json(path: Path, default: dict[str, Any], change: Callable[[dict[str, Any]], T]) -> T:
    """Apply ``change`` to the file's JSON object in place, under the lock, and save it atomically.

    Args:
        path: the JSON file (its folder is created 0700 if needed; the file is 0600).
        default: the content to start from when the file is missing or damaged (a damaged one
            is moved aside first, as ``read_json`` does).
        change: mutates the dict it is given; its return value is returned.

    Raises:
        filelock.Timeout: another process held the lock for longer than ``LOCK_TIMEOUT_S``.
        OSError: the state dir cannot be written.
    """
    from filelock import FileLock

    private_dir(path.parent)
    with FileLock(str(path) + ".lock", timeout=LOCK_TIMEOUT_S, mode=0o600):
        data = read_json(path, default)
        result = change(data)
        _write_atomic(path, data)
    return result


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    # 0600: grants say what may run unasked, only the user should read or edit them.
    write_private(path, json.dumps(data, indent=2, sort_keys=True) + "\n")
