"""What a terminal command changed in the tracked files, and what they held before it ran.

Before a command: ``git status`` lists the tracked files already changed (dirty); those not yet in
the turn's checkpoint are copied into memory (bounded). After it: ``git status`` again, and the
files between the old and new HEAD when the command committed or reset. A file clean before held
what HEAD held then; a dirty one held the copy. Every git run goes through :class:`SafeGit` (no
hooks, filters, fsmonitor or pagers the repository configured). Untracked files, ignored files and anything outside the
workspace are not followed: /undo says so.
"""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.checkpoints.store import file_state
from agent_tui.errors import ToolError
from agent_tui.safe_read import read_bytes
from agent_tui.tools.fs_util import new_file_mode
from agent_tui.tools.git_safe import DIFF_FLAGS, SafeGit

# Copies of dirty files kept in memory while a command runs: a bound on count and bytes.
MAX_DIRTY_FILES = 500
MAX_DIRTY_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class DirtyCopy:
    """A tracked file already changed before the command: its state, and its bytes if copied."""

    state: str
    data: bytes | None
    mode: int | None


@dataclass
class CommandWatch:
    """What was known before a command ran."""

    git: SafeGit
    top: Path
    head: str | None = None  # the commit HEAD named (None: no commit yet)
    dirty: dict[Path, DirtyCopy] = field(default_factory=dict)


def open_repo(workspace: Path) -> tuple[SafeGit, Path] | None:
    """The workspace's git repository (runner, top folder), or None when there is none."""
    git = SafeGit(workspace)
    try:
        top = git.work_tree(workspace)
    except ToolError:  # git missing, or core.worktree points elsewhere: not followed
        return None
    return None if top is None else (git, top)


def changed_tracked(git: SafeGit, top: Path) -> set[Path]:
    """Tracked files under git's cwd that differ from HEAD (staged or not), as absolute paths."""
    found = git.run(
        "status",
        "--porcelain=v1",
        "-z",
        "--untracked-files=no",
        "--ignore-submodules=all",
        "--",
        ".",
    )
    if found.code != 0:
        return set()
    paths: set[Path] = set()
    parts = found.out.split("\0")
    index = 0
    while index < len(parts):
        item = parts[index]
        index += 1
        if len(item) < 4:
            continue
        paths.add(top / item[3:])
        if item[0] in "RC":  # a rename or copy: the next field is where it came from
            if index < len(parts) and parts[index]:
                paths.add(top / parts[index])
            index += 1
    return paths


def watch_before(workspace: Path, skip: set[Path], max_file_bytes: int) -> CommandWatch | None:
    """Note the dirty tracked files before a command; copy those not in ``skip`` (bounded)."""
    repo = open_repo(workspace)
    if repo is None:
        return None
    git, top = repo
    watch = CommandWatch(git, top, head_commit(git))
    budget = MAX_DIRTY_BYTES
    for path in sorted(changed_tracked(git, top)):
        if path in skip or len(watch.dirty) >= MAX_DIRTY_FILES:
            continue
        try:
            st = path.lstat()
        except OSError:
            watch.dirty[path] = DirtyCopy(file_state(path), None, None)
            continue
        data: bytes | None = None
        if stat.S_ISREG(st.st_mode) and st.st_size <= min(max_file_bytes, budget):
            try:
                data = read_bytes(path, min(max_file_bytes, budget), follow_symlinks=False)
            except OSError:
                data = None  # swapped for a FIFO or grown since the lstat: not kept
            budget -= len(data or b"")
        watch.dirty[path] = DirtyCopy(file_state(path), data, stat.S_IMODE(st.st_mode))
    return watch


def committed_content(
    git: SafeGit, head: str | None, top: Path, path: Path
) -> tuple[bytes, int] | None:
    """What commit ``head`` holds at ``path``: (bytes, mode), or None when it holds no file there.

    A tracked file that ``git status`` did not list before the command was the same in the work
    tree, the index and HEAD; HEAD is read (not the index) since the command may have staged,
    committed or reset things since.
    """
    if head is None:
        return None
    relative = path.relative_to(top).as_posix()
    listed = git.run("ls-tree", "-z", "--full-tree", head, "--", f":(literal){relative}")
    fields = listed.out.split("\0")[0].split(None, 3) if listed.code == 0 else []
    if len(fields) < 4 or fields[0] not in ("100644", "100755") or fields[1] != "blob":
        return None  # not in that commit, a symlink or a submodule: not restored from here
    code, data = git.run_bytes("cat-file", "blob", fields[2])
    if code != 0:
        return None
    return data, worktree_mode(path, executable=fields[0] == "100755")


def head_commit(git: SafeGit) -> str | None:
    found = git.run("rev-parse", "--verify", "-q", "HEAD^{commit}")
    return found.out.strip() or None if found.code == 0 else None


def changed_by_command(watch: CommandWatch) -> set[Path]:
    """Tracked files that may differ from before the command: dirty now, dirty before, or changed
    between the commit HEAD was and the one it is now (the command committed or reset)."""
    changed = changed_tracked(watch.git, watch.top) | set(watch.dirty)
    head = head_commit(watch.git)
    if watch.head is not None and head is not None and head != watch.head:
        diff = watch.git.run("diff", "--name-only", "-z", *DIFF_FLAGS, watch.head, head, "--", ".")
        if diff.code == 0:
            changed |= {watch.top / name for name in diff.out.split("\0") if name}
    return changed


def worktree_mode(path: Path, *, executable: bool) -> int:
    """The mode a clean file had: git records only the exec bit, so the file's own other bits are
    kept when its exec bit still matches (a command like ``sed -i`` keeps them), else the bits git
    checks files out with under this umask."""
    try:
        current = stat.S_IMODE(path.lstat().st_mode)
        if bool(current & 0o100) == executable:
            return current
    except OSError:
        pass
    plain = new_file_mode()  # 0o666 under the umask
    return plain | ((plain & 0o444) >> 2) if executable else plain
