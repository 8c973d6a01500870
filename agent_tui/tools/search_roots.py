"""Which folder a search runs in: the workspace, or an extra root (``--add-dir``, ``/add-dir``)
named by the glob's leading folders.

``file_search`` and ``grep_search`` take a glob (``pattern``, ``include_pattern``) rather than a
folder. A glob relative to the workspace (``src/**/*.py``) is read as before. One that names a
folder by an absolute path, ``~`` or ``..`` (``/home/me/lib/**/*.py``) is split at its first glob
character: the folder before it goes through the one path check (``ToolContext.resolve``: links
followed, refused outside the workspace and every extra root), the search runs in the root that
holds it, and the rest of the glob is taken from there. So an extra root is searched exactly as the
workspace is, and a folder outside all of them is refused with the same message as ``read_file``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from agent_tui.tools.base import ToolContext
from agent_tui.tools.fs_walk import folder_glob
from agent_tui.tools.workspace_paths import root_of

_GLOB_CHARS = frozenset("*?[{")


@dataclass(frozen=True)
class SearchScope:
    """A search's folder and its glob.

    Attributes:
        root: the folder searched (resolved): the workspace or an extra root.
        glob: the glob relative to ``root`` ("" when the whole folder is searched).
        outside: ``root`` is an extra root: results are named by their full path, so the model
            can open them (a relative path would be read from the workspace).
    """

    root: Path
    glob: str
    outside: bool

    def shown(self, relative: str) -> str:
        """How a file found under ``root`` is named in the result."""
        return str(self.root / relative) if self.outside else relative

    def described(self) -> str:
        """The glob as the user sees it on the card (with the extra root's path)."""
        if not self.outside:
            return self.glob
        return f"{self.root}/{self.glob}" if self.glob else str(self.root)


def names_a_folder(pattern: str) -> bool:
    """Whether ``pattern`` leads somewhere by itself: absolute, ``~`` or a ``..`` in it."""
    return pattern.startswith(("/", "~")) or ".." in PurePosixPath(pattern).parts


def scope_of(pattern: str, ctx: ToolContext) -> SearchScope:
    """Where ``pattern`` (already known to name a folder: :func:`names_a_folder`) searches.

    Raises:
        ToolError: its folder resolves outside the workspace and every extra root (the
            ``OutsideWorkspace`` of ``ToolContext.resolve``, naming the roots).
    """
    parts = PurePosixPath(pattern).parts
    cut = next((i for i, part in enumerate(parts) if _GLOB_CHARS & set(part)), len(parts))
    folder = str(PurePosixPath(*parts[:cut])) if cut else "."
    full = ctx.resolve(folder)
    workspace = ctx.workspace.resolve()
    root = root_of((workspace, *ctx.session.extra_roots), full) or workspace
    below = full.relative_to(root).as_posix()
    rest = "/".join(parts[cut:])
    glob = "/".join(p for p in (below if below != "." else "", rest) if p)
    if glob and not rest:
        glob = folder_glob(glob, root)  # a folder means the files in it; a file is itself
    return SearchScope(root, glob, root != workspace)
