"""The one outside-the-workspace check (DESIGN §4): every path a tool uses and every file the app
reads on its own (prompt files, instructions files, participant prompts, ``#file``, the untracked
files ``get_changed_files`` shows) goes through it.

Why one function: a repository controls its own files, symbolic links included, and a link committed
as ``.agent/prompts/review.prompt.md -> ../../../.ssh/id_rsa`` survives ``git clone``. Whatever reads a
workspace file for the model must follow the link first and look where it really lands; a copy of
the check that forgets a case (a symlinked folder, ``..``, ``~``) is how a key file reaches a model.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agent_tui.errors import ToolError


class OutsideWorkspace(ToolError):
    """A path that resolves (via ``..``, an absolute path or a symbolic link) outside the workspace.

    Args:
        path: the path as given.
        target: where it really leads.
        root: the workspace root (resolved).
        extra_roots: the session's extra roots (``--add-dir``), named in the message.
    """

    def __init__(
        self, path: str, target: Path, root: Path, extra_roots: tuple[Path, ...] = ()
    ) -> None:
        self.path, self.target, self.root = path, target, root
        message = describe_outside(path, target, root, extra_roots)
        if extra_roots:
            listed = ", ".join(str(r) for r in extra_roots)
            message = message.replace(
                f"({root}); only paths inside it",
                f"({root}) and its extra roots ({listed}); only paths inside them",
            )
        super().__init__(message)


def real_root(workspace: Path) -> Path:
    """The workspace root with every symbolic link resolved."""
    return Path(os.path.realpath(workspace))


def is_inside(root: Path, path: Path) -> bool:
    """Whether ``path`` is ``root`` or lies under it (both already resolved)."""
    return path == root or root in path.parents


def real_path(workspace: Path, path: str | Path) -> Path:
    """``path`` (workspace-relative or absolute, ``~`` expanded) with every link and ``..`` resolved."""
    candidate = Path(path).expanduser()
    return Path(os.path.realpath(candidate if candidate.is_absolute() else workspace / candidate))


def inside_any(roots: Iterable[Path], path: Path) -> bool:
    """Whether ``path`` (resolved) lies in one of ``roots`` (resolved): the workspace and the
    extra roots of ``--add-dir`` / ``/add-dir``."""
    return any(is_inside(root, path) for root in roots)


def root_of(roots: Iterable[Path], path: Path) -> Path | None:
    """The first of ``roots`` (resolved) that ``path`` (resolved) lies in, or None."""
    return next((root for root in roots if is_inside(root, path)), None)


def inside_workspace(workspace: Path, path: str | Path) -> Path | None:
    """The resolved ``path`` if it lands inside the workspace, else None.

    Args:
        workspace: the workspace root (resolved here, so a symlinked root is fine).
        path: workspace-relative or absolute.
    """
    root = real_root(workspace)
    full = real_path(root, path)
    return full if is_inside(root, full) else None


def require_inside(workspace: Path, path: str | Path, extra_roots: Iterable[Path] = ()) -> Path:
    """Like :func:`inside_workspace`, but a path outside is an error saying where it leads.

    Args:
        workspace: the workspace root; a relative ``path`` is taken from it.
        path: workspace-relative or absolute.
        extra_roots: folders allowed as the workspace is (``--add-dir``; resolved).

    Raises:
        OutsideWorkspace: the path resolves outside the workspace and every extra root.
    """
    root = real_root(workspace)
    full = real_path(root, path)
    extra = tuple(extra_roots)
    if not inside_any((root, *extra), full):
        raise OutsideWorkspace(str(path), full, root, extra)
    return full


def describe_outside(path: str, target: Path, root: Path, extra_roots: Iterable[Path] = ()) -> str:
    """A sentence for a refused path; names the link's target when the path itself looked inside
    (the workspace or an extra root)."""
    candidate = Path(path).expanduser()
    lexical = Path(os.path.normpath(candidate if candidate.is_absolute() else root / candidate))
    if inside_any((root, *extra_roots), lexical):
        return (
            f"{path} is a symbolic link (or lies in a linked folder) that leads to {target}, "
            f"outside the workspace ({root}); only paths inside it can be used."
        )
    return f"{path} is outside the workspace ({root}); only paths inside it can be used."
