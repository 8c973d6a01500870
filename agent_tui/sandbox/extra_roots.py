"""Extra roots: folders the tools may read and edit as they do the workspace (``--add-dir PATH``,
``/add-dir PATH``, ACP's ``additionalDirectories``).

An extra root gets the workspace's treatment, nothing more: the same approvals (a read-only tool
runs unasked inside it, an edit asks unless a rule, grant or mode covers it), the same protected
names (``.git/``, ``.env*``, ``.agentrc`` … inside it ask and stay read-only in the sandbox), and
the sandbox lets commands write it. So a folder whose whole content the user would not hand to a
model is refused, checked after every symbolic link is resolved (``~/proj/link -> ~`` is ``~``):
``/`` and the home folder themselves or a folder above them, the app's state dir and user config
(grants, trust, tokens, sessions) or a folder holding them, and the credential folders the sandbox
hides from commands (``~/.ssh``, ``~/.aws`` … :data:`policy.DEFAULT_DENY_READ`) or a folder inside
or above one of those.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.errors import UsageError
from agent_tui.sandbox.policy import DEFAULT_DENY_READ, app_private_paths
from agent_tui.tools.workspace_paths import is_inside, real_root

if TYPE_CHECKING:
    from agent_tui.sandbox.runtime import Sandbox


def check_extra_root(raw: str | Path, workspace: Path, current: Iterable[Path] = ()) -> Path:
    """The folder ``raw`` names, resolved, if it may be an extra root.

    Args:
        raw: the path as the user gave it (``~`` expanded; relative to the workspace).
        workspace: the workspace root.
        current: the extra roots already added (resolved).

    Returns:
        The resolved folder.

    Raises:
        UsageError: it does not exist, is not a folder, is the workspace or inside it or an extra
            root already, or is a protected location (the message says which).
    """
    text = str(raw).strip()
    if not text:
        raise UsageError("Give a folder: /add-dir PATH.")
    given = Path(text).expanduser()
    full = real_root(given if given.is_absolute() else workspace / given)
    if not full.is_dir():
        raise UsageError(f"{text} is not a folder ({full}).")
    root = real_root(workspace)
    if is_inside(root, full):
        raise UsageError(f"{full} is inside the workspace ({root}) already.")
    if any(is_inside(extra, full) for extra in current):
        raise UsageError(f"{full} is inside an extra root already.")
    reason = protected_location(full)
    if reason:
        raise UsageError(f"{text} cannot be added: {full} {reason}.")
    return full


def add_checked_root(roots: list[Path], sandbox: Sandbox | None, full: Path) -> None:
    """Add ``full`` (checked by :func:`check_extra_root`) to the session's one list of extra
    roots and to the sandbox's writable set, so the next command may write it."""
    roots.append(full)
    if sandbox is not None and full not in sandbox.policy.writable:
        writable = (*sandbox.policy.writable, full)
        sandbox.policy = dataclasses.replace(sandbox.policy, writable=writable)


def protected_location(full: Path) -> str | None:
    """Why the resolved folder ``full`` may not be an extra root, or None."""
    home = real_root(Path.home())
    if full == Path(full.anchor):
        return "is the root of the file system"
    if is_inside(full, home):
        return "is your home folder" if full == home else "holds your home folder"
    private = [real_root(p) for p in app_private_paths()]
    if any(is_inside(full, p) or is_inside(p, full) for p in private):
        return "holds agent-tui's own state or config (approvals, trust, sessions, tokens)"
    for name in DEFAULT_DENY_READ:
        secret = Path(os.path.realpath(home / name[2:]))
        if is_inside(full, secret) or is_inside(secret, full):
            return f"holds credentials ({name})"
    return None
