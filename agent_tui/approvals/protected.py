"""Protected paths on disk (DESIGN §5): which glob a write target falls under, links included.

The names are matched by :func:`agent_tui.approvals.rules.sensitive_match` (pure, at any folder
level). This module adds what only the disk knows: the policy already resolves every path (so
``./.mcp.json``, ``sub/../.mcp.json``, an absolute path and a link *to* ``.mcp.json`` all arrive as
``.mcp.json``), but a protected name at the workspace root may itself be a link *from* somewhere
(``.mcp.json -> config/servers.json``, ``.vscode -> tools/vscode``), and then writing the link's
target rewrites the protected file. Those root entries are checked too; links inside protected
folders are not followed (a repository that commits them is already untrusted; see README).

``PROTECTED_NOTE`` is the phrase verdicts use, so a UI can point such calls out.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent_tui.approvals.rules import sensitive_match
from agent_tui.tools.workspace_paths import is_inside, real_path

PROTECTED_NOTE = "a protected path"


def protected_glob(root: Path, full: Path) -> str | None:
    """The protected glob ``full`` (resolved, inside ``root``) falls under, or None.

    Args:
        root: the workspace root, resolved.
        full: the path a call writes, resolved.
    """
    glob = sensitive_match(full.relative_to(root).as_posix())
    if glob is not None:
        return glob
    try:
        entries = list(os.scandir(root))
    except OSError:
        return None
    for entry in entries:
        name_glob = sensitive_match(entry.name)
        if name_glob is None or not entry.is_symlink():
            continue
        target = real_path(root, entry.path)
        if is_inside(target, full):
            return name_glob
    return None


def protected_reason(shown: str, glob: str) -> str:
    """``.mcp.json is a protected path (`.mcp.json`)``: the wording every verdict uses."""
    return f"{shown} is {PROTECTED_NOTE} (`{glob}`)"
