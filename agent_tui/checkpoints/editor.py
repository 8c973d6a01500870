"""Checkpoints of files the user's editor holds (``agent-tui acp`` with a client offering
``fs``): the model edits the editor's text, so that is what a snapshot keeps and what ``/undo``
compares and puts back, through the same ``FileAccess`` the tools used.

The protocol cannot delete a file: a file the turn created is deleted on disk, as without an
editor (a buffer the editor holds for it stays open there).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from agent_tui.checkpoints.restore import (
    Done,
    FileAction,
    UndoPlan,
    UndoReport,
    plan_undo,
    restore_file,
    undo_steps,
)
from agent_tui.checkpoints.store import TurnRecord, state_of
from agent_tui.errors import ToolError
from agent_tui.tools.file_access import FileAccess

# A file's bytes as the editor has them, by path.
Seen = dict[Path, bytes]


async def editor_bytes(files: FileAccess | None, paths: Iterable[Path]) -> Seen | None:
    """The editor's text of each existing file in ``paths``, encoded as the file is stored
    (None without an editor; a file the editor cannot read is left to the disk)."""
    if files is None or not files.editor:
        return None
    seen: Seen = {}
    for path in paths:
        if not path.is_file():
            continue
        try:
            text = await files.read(path, str(path))
        except ToolError:
            continue
        seen[path] = text.encode(text.text)
    return seen


async def undo_through(
    files: FileAccess, records: list[TurnRecord], workspace: Path, *, overwrite: bool
) -> UndoReport:
    """``/undo`` of ``records`` with the files as the editor has them: compared with what the
    agent last wrote there, and put back through it."""
    paths = {Path(entry.path) for record in records for entry in record.files.values()}
    seen = await editor_bytes(files, paths) or {}
    plan: UndoPlan = plan_undo(records, workspace, {str(p): state_of(b) for p, b in seen.items()})
    steps = undo_steps(plan, overwrite)
    done: Done = None
    while True:
        try:
            action = steps.send(done)  # the first send(None) starts it
        except StopIteration as finished:
            report: UndoReport = finished.value
            return report
        try:
            done = await _put_back(files, action)
        except (OSError, ToolError) as exc:
            done = exc


async def _put_back(files: FileAccess, action: FileAction) -> str:
    entry = action.entry
    if not entry.existed or entry.blob is None:
        return restore_file(action)  # a file the turn created: deleted on disk
    data = action.record.read_blob(entry.blob)
    await files.write(Path(entry.path), action.shown, data.decode("utf-8", "surrogateescape"), None)
    return "restored"
