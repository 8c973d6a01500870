"""Checkpoint records on disk, in the user's state dir (never the workspace, never git refs).

One folder per turn that changed files or ran commands::

    <state>/checkpoints/<workspace-key>/<run-id>/<turn:05d>-<time_ns>/manifest.json
                                                                     /blobs/<sha256>

``manifest.json`` lists, for each file the turn touched, what it was before the turn's first change
(content in ``blobs/``, mode, or "did not exist") and its state right after the agent's last change
(to tell a later hand edit from the agent's own). Folders are 0700, files 0600. A manifest that
cannot be read is skipped (logged): a damaged record must never stop the app.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.paths import workspace_dir_name
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, NotRegularFile, open_regular, read_text
from agent_tui.state_files import private_dir, write_private

logger = logging.getLogger(__name__)

ABSENT = "absent"  # the state of a path with no file at it
MANIFEST = "manifest.json"

# Entry status: what /undo can do with the file.
SAVED = "saved"  # content and mode kept (or "did not exist"): restorable
TOO_LARGE = "too_large"  # over [checkpoints] max_file_mb: not copied
UNKNOWN = "unknown"  # its earlier content could not be captured (see ``note``)


def workspace_key(workspace: Path) -> str:
    """The folder name for a workspace's checkpoints (paths.workspace_dir_name)."""
    return workspace_dir_name(workspace)


def state_of(data: bytes) -> str:
    """A file's state (as ``file_state`` says it) from its bytes."""
    import hashlib  # here, as in the two below: a start without an edit needs none (~2 ms)

    return hashlib.sha256(data).hexdigest()


def file_state(path: Path) -> str:
    """``ABSENT``, ``"other"`` (not a regular file) or the sha256 of the file's bytes."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return ABSENT
    except NotADirectoryError:
        return ABSENT
    if not stat.S_ISREG(st.st_mode):
        return "other"
    import hashlib

    digest = hashlib.sha256()
    try:
        fh = open_regular(path, follow_symlinks=False)
    except NotRegularFile:  # swapped for a FIFO since the lstat
        return "other"
    with fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass
class FileEntry:
    """One file a turn touched: what it was before the turn's first change to it.

    Args:
        path: the absolute (real) path.
        existed: False when the turn created the file.
        mode: the permission bits before (None when it did not exist or was not copied).
        blob: sha256 of the saved content (``blobs/<sha>``), None when none was saved.
        status: ``SAVED``, ``TOO_LARGE`` or ``UNKNOWN``.
        note: why it was not saved, in words for the user.
        after: the file's state right after the agent's last change (sha256 or ``ABSENT``).
        made_dirs: folders above a created file that did not exist before (removed on undo).
        undone: /undo restored it already.
    """

    path: str
    existed: bool
    mode: int | None = None
    blob: str | None = None
    status: str = SAVED
    note: str = ""
    after: str | None = None
    made_dirs: list[str] = field(default_factory=list)
    undone: bool = False

    @property
    def before(self) -> str:
        """The state undo puts back (sha256 or ``ABSENT``); "" when it is not known."""
        if not self.existed:
            return ABSENT
        return self.blob or ""


@dataclass
class TurnRecord:
    """The checkpoint of one turn: the files it touched and the commands it ran."""

    folder: Path
    run: str
    turn: int
    prompt: str
    created: int
    files: dict[str, FileEntry] = field(default_factory=dict)
    commands: list[str] = field(default_factory=list)
    untracked_commands: list[str] = field(default_factory=list)  # no git repo / background
    reported: bool = False  # /undo has dealt with it (and said what it could not undo)
    # /rewind cut this turn from the conversation: its prompt's index may now be another turn's.
    rewound: bool = False

    @property
    def undone(self) -> bool:
        """Nothing is left to undo: every file is restored (or never could be) and /undo has
        reported the turn (a turn that only ran commands has nothing else to undo)."""
        if not self.files:  # only commands: worth a report when one ran where none is tracked
            return self.reported or not self.untracked_commands
        return all(e.undone or e.status != SAVED for e in self.files.values())

    def save(self) -> None:
        body = {
            "version": 1,
            "run": self.run,
            "turn": self.turn,
            "prompt": self.prompt,
            "created": self.created,
            "files": [asdict(e) for e in self.files.values()],
            "commands": self.commands,
            "untracked_commands": self.untracked_commands,
            "reported": self.reported,
            "rewound": self.rewound,
        }
        write_private(self.folder / MANIFEST, json.dumps(body, ensure_ascii=False))

    def save_blob(self, data: bytes) -> str:
        import hashlib

        sha = hashlib.sha256(data).hexdigest()
        target = private_dir(self.folder / "blobs") / sha
        if not target.exists():  # atomic: a blob cut short by a full disk must never be reused
            write_private(target, data, sync=False)
        return sha

    def read_blob(self, sha: str) -> bytes:
        return (self.folder / "blobs" / sha).read_bytes()


def load_record(folder: Path) -> TurnRecord | None:
    """Read one turn folder; None (logged) when its manifest is missing or damaged."""
    try:
        data: Any = json.loads(read_text(folder / MANIFEST, MAX_TEXT_FILE_BYTES, errors="strict"))
        files = {e["path"]: FileEntry(**e) for e in data["files"]}
        return TurnRecord(
            folder,
            str(data["run"]),
            int(data["turn"]),
            str(data["prompt"]),
            int(data["created"]),
            files,
            list(data.get("commands", [])),
            list(data.get("untracked_commands", [])),
            bool(data.get("reported", False)),
            bool(data.get("rewound", False)),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("checkpoint %s cannot be read: %s", folder, exc)
        return None


def list_records(workspace_folder: Path, run: str | None = None) -> list[TurnRecord]:
    """The records of one run (or of every run) in a workspace's folder, oldest first."""
    if not workspace_folder.is_dir():
        return []
    runs = [workspace_folder / run] if run else sorted(workspace_folder.iterdir())
    found: list[TurnRecord] = []
    for run_folder in runs:
        if not run_folder.is_dir():
            continue
        for folder in run_folder.iterdir():
            record = load_record(folder) if folder.is_dir() else None
            if record is not None:
                found.append(record)
    return sorted(found, key=lambda r: r.created)


def folder_size(folder: Path) -> int:
    total = 0
    for root, _dirs, names in os.walk(folder):
        for name in names:
            try:
                total += (Path(root) / name).lstat().st_size
            except OSError:
                continue
    return total


def prune(workspace_folder: Path, max_bytes: int, keep: Path | None = None) -> list[Path]:
    """Delete the oldest turn folders until the workspace's checkpoints fit in ``max_bytes``.

    Args:
        workspace_folder: ``<state>/checkpoints/<workspace-key>``.
        max_bytes: the bound (``[checkpoints] max_mb``).
        keep: a folder never deleted (the turn being recorded).

    Returns:
        The folders deleted.
    """
    records = list_records(workspace_folder)
    sizes = {r.folder: folder_size(r.folder) for r in records}
    total = sum(sizes.values())
    deleted: list[Path] = []
    for record in records:
        if total <= max_bytes:
            break
        if record.folder == keep:
            continue
        shutil.rmtree(record.folder, ignore_errors=True)
        total -= sizes[record.folder]
        deleted.append(record.folder)
        try:
            record.folder.parent.rmdir()  # the run's folder, once empty
        except OSError:
            pass
    return deleted
