"""Protected paths (DESIGN §5): the one list of what no rule, grant or mode may write unasked.

Each entry is something the app (or git, or an editor it reads config from) takes instructions or
programs from on a later run, so a model that writes one acts without asking:

- ``.agentrc``: config (hooks, MCP servers, rules); ``.mcp.json``: MCP servers it starts;
- ``.agents/``, ``.agent/``, ``.claude/``: skills (``SKILL.md`` goes into the system prompt),
  custom agents, prompt files (slash commands), hooks (``.claude/settings*.json``);
- ``.vscode/``: ``mcp.json`` servers (and the editor's tasks); ``.git/``: hooks, ``core.fsmonitor``
  and the other programs a repository's config names (a ``.git`` *file* redirects to another one);
- ``AGENTS.md``, ``CLAUDE.md``, ``.github/copilot-instructions.md`` and any name in
  ``[agent] instructions_files``: instructions files. The root's go into every system prompt, a
  subfolder's into the results of calls under it (folder_instructions.py), so writing one is a
  lasting prompt injection. Editing them is a normal request, so they ask rather than refuse;
- ``.env*``: secrets and settings other tools load.

Names match at every folder level (``pkg/.vscode/``, ``sub/AGENTS.md``): a subfolder may be opened
as a workspace of its own, and its subfolder instructions are read anyway. Names compare as the
file systems of macOS and Windows would (see :func:`_file_system_name`).

This module also adds what only the disk knows: the policy already resolves every path (so
``./.mcp.json``, ``sub/../.mcp.json``, an absolute path and a link *to* ``.mcp.json`` all arrive as
``.mcp.json``), but a protected name at the workspace root may itself be a link *from* somewhere
(``.mcp.json -> config/servers.json``, ``.vscode -> tools/vscode``), and then writing the link's
target rewrites the protected file. Those root entries are checked too; links inside protected
folders are not followed (a repository that commits them is already untrusted; see README).

For an OS sandbox that mounts these read-only: :func:`sandbox_protected_names` gives the names
under a writable root (what agent_tui/sandbox mounts), :func:`protected_globs` the globs and
:func:`protected_paths` the concrete paths under a workspace root (existing ones found at any
depth, plus the top-level names that do not exist yet, so they cannot be created either).

``PROTECTED_NOTE`` is the phrase verdicts use, so a UI can point such calls out.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from agent_tui.tools.workspace_paths import is_inside, real_path

PROTECTED_NOTE = "a protected path"

# Folders protected whole, the folder itself included.
PROTECTED_FOLDERS: tuple[str, ...] = (".agents", ".agent", ".claude", ".vscode", ".git")
# Files, matched as the last part(s) of a path; a name with a slash matches that many parts.
PROTECTED_FILES: tuple[str, ...] = (
    ".agentrc",
    ".mcp.json",
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
)
# Any file whose name starts with one of these (``.env``, ``.env.local``).
PROTECTED_PREFIXES: tuple[str, ...] = (".env",)


def protected_globs(extra_files: Iterable[str] = ()) -> tuple[str, ...]:
    """Every protected path as a workspace-relative glob (``**/`` = at any folder level).

    Args:
        extra_files: ``[agent] instructions_files`` names (a name with a slash is root-relative).
    """
    folders = [f"**/{name}/**" for name in PROTECTED_FOLDERS] + [
        f"**/{name}" for name in PROTECTED_FOLDERS
    ]
    files = [f"**/{name}" for name in _files(extra_files)]
    prefixes = [f"**/{prefix}*" for prefix in PROTECTED_PREFIXES]
    rooted = [name.lstrip("/") for name in extra_files if "/" in name]
    return tuple(dict.fromkeys([*folders, *files, *prefixes, *rooted]))


# Git's own folder, for an OS sandbox: commands must still write objects and refs (git commit),
# so only what names programs or settings is kept read-only.
SANDBOX_GIT: tuple[str, ...] = (".git/config", ".git/hooks", ".git/info")


def sandbox_protected_names(extra_files: Iterable[str] = ()) -> tuple[str, ...]:
    """The names under a writable root that an OS sandbox keeps read-only (existing or not):
    every protected folder and file of this module, ``.git`` narrowed to :data:`SANDBOX_GIT`.
    (``.env*`` is a prefix, not a name; secrets are the deny-read list's business.)

    Args:
        extra_files: ``[agent] instructions_files`` names.
    """
    folders = [name for name in PROTECTED_FOLDERS if name != ".git"]
    return (*SANDBOX_GIT, *folders, *_files(extra_files))


def protected_paths(root: Path, extra_files: Iterable[str] = ()) -> list[Path]:
    """The concrete protected paths under ``root``, for a sandbox to mount read-only.

    Existing ones at any depth (the walk does not follow links, nor enter a protected folder,
    which is listed whole), then each top-level name that does not exist yet.

    Args:
        root: the workspace root.
        extra_files: ``[agent] instructions_files`` names.
    """
    extra = tuple(extra_files)
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        base = Path(folder)
        relative = base.relative_to(root)
        whole = {d for d in dirs if protected_match((relative / d).as_posix(), extra) is not None}
        found += [base / d for d in sorted(whole)]
        dirs[:] = sorted(set(dirs) - whole)
        for name in sorted(files):
            if protected_match((relative / name).as_posix(), extra) is not None:
                found.append(base / name)
    top = [*PROTECTED_FOLDERS, *_files(extra)]
    missing = [root / name for name in top if not (root / name).exists()]
    return found + [p for p in missing if not p.is_symlink()]


def protected_match(relative: str, extra_files: Iterable[str] = ()) -> str | None:
    """The protected glob a workspace-relative posix path falls under, or None (pure, no I/O).

    Checked on every folder level, so ``config/.env.local``, ``sub/.git/config``,
    ``pkg/AGENTS.md`` and ``pkg/.vscode/settings.json`` count too.
    """
    extra = tuple(extra_files)
    parts = tuple(_file_system_name(p) for p in PurePosixPath(relative).parts)
    for index, name in enumerate(parts):
        for prefix in PROTECTED_PREFIXES:
            if name.startswith(prefix.casefold()):
                return f"{prefix}*"
        for folder in PROTECTED_FOLDERS:
            if name == folder.casefold():  # the folder itself or anything in it
                return f"{folder}/**"
        for file in _files(extra):
            if parts[index:] == _name_parts(file):
                return file
    for file in extra:  # a name with a slash: at the root only, as instructions.py reads it
        if "/" in file and parts == _name_parts(file.lstrip("/")):
            return file
    return None


def protected_glob(root: Path, full: Path, extra_files: Iterable[str] = ()) -> str | None:
    """The protected glob ``full`` (resolved, inside ``root``) falls under, or None.

    Args:
        root: the workspace root, resolved.
        full: the path a call writes, resolved.
        extra_files: ``[agent] instructions_files`` names.
    """
    extra = tuple(extra_files)
    glob = protected_match(full.relative_to(root).as_posix(), extra)
    if glob is not None:
        return glob
    try:
        entries = list(os.scandir(root))
    except OSError:
        return None
    for entry in entries:
        if not entry.is_symlink():
            continue
        target = real_path(root, entry.path)
        if is_inside(target, full):
            # Written through the link's name: `.github -> docs` makes docs/copilot-instructions.md
            # the instructions file.
            through = PurePosixPath(entry.name, full.relative_to(target).as_posix())
            glob = protected_match(through.as_posix(), extra)
            if glob is not None:
                return glob
    return None


def protected_reason(shown: str, glob: str) -> str:
    """``.mcp.json is a protected path (`.mcp.json`)``: the wording every verdict uses."""
    return f"{shown} is {PROTECTED_NOTE} (`{glob}`)"


def _files(extra: Iterable[str]) -> tuple[str, ...]:
    """The protected file names matched at any level: the defaults and slash-less extras."""
    return tuple(dict.fromkeys([*PROTECTED_FILES, *(n for n in extra if "/" not in n)]))


def _name_parts(name: str) -> tuple[str, ...]:
    return tuple(_file_system_name(p) for p in PurePosixPath(name).parts)


def _file_system_name(part: str) -> str:
    """A name as a case-insensitive file system sees it: letter case folded, invisible format
    characters dropped (HFS+ ignores some, e.g. U+200C), trailing dots and spaces dropped (Windows
    does), so ``.MCP.json``, ``.mcp\u200c.json`` and ``.mcp.json.`` all name ``.mcp.json`` there."""
    visible = "".join(ch for ch in part if unicodedata.category(ch) != "Cf")
    return visible.rstrip(". ").casefold() or visible.casefold()
