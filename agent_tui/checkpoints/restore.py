"""Undoing turns: put back what the files held before them, never clobbering a hand edit.

:func:`plan_undo` works out, newest turn first, what each file goes back to and whether it changed
since the agent's last write to it (a *conflict*: someone else edited it). :func:`apply_undo` then
restores content and mode, deletes files the turns created (and the folders made for them),
recreates files they deleted or moved away, and skips conflicts unless told to overwrite them.
:func:`describe` says what happened and, plainly, what cannot be undone.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.checkpoints.store import SAVED, FileEntry, TurnRecord, file_state
from agent_tui.errors import ToolError
from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.tools.fs_util import atomic_write


@dataclass(frozen=True)
class FileAction:
    """One file of one turn to put back."""

    record: TurnRecord
    entry: FileEntry
    shown: str
    conflict: bool  # changed since the agent's last write to it


@dataclass
class UndoPlan:
    """What undoing turns would do: the file actions, and the files that cannot be restored."""

    records: list[TurnRecord]  # newest first
    actions: list[FileAction] = field(default_factory=list)
    cannot: list[str] = field(default_factory=list)  # "big.bin: larger than the 10 MB limit"

    @property
    def conflicts(self) -> list[str]:
        return list(dict.fromkeys(a.shown for a in self.actions if a.conflict))


@dataclass
class UndoReport:
    """What an undo did: files restored, deleted, skipped or failed, and commands it cannot undo."""

    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # conflicts left as they are
    failed: list[str] = field(default_factory=list)
    cannot: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    untracked_commands: list[str] = field(default_factory=list)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.restored, *self.deleted]))


def shown_path(workspace: Path, path: str) -> str:
    try:
        return Path(path).relative_to(workspace).as_posix()
    except ValueError:
        return path


def plan_undo(
    records: list[TurnRecord], workspace: Path, current: Mapping[str, str] | None = None
) -> UndoPlan:
    """What undoing ``records`` (given newest first) would do to each file; ``current``: the
    state of files as the editor has them (the rest are read from disk).

    A file several turns changed is checked against each turn in turn: after the newer turn is
    undone it should be what the older one left, unless someone edited it between the turns.
    """
    plan = UndoPlan(records)
    simulated: dict[str, str] = {}
    for record in records:
        for entry in record.files.values():
            shown = shown_path(workspace, entry.path)
            if entry.undone or (entry.after is not None and entry.after == entry.before):
                continue  # already put back, or the call left it as it was (a refused edit)
            if entry.status != SAVED:
                plan.cannot.append(f"{shown}: {entry.note or 'not snapshotted'}")
                continue
            now = simulated.get(entry.path)
            if now is None:
                now = (current or {}).get(entry.path)
            if now is None:
                now = file_state(Path(entry.path))
            conflict = entry.after is not None and now != entry.after
            plan.actions.append(FileAction(record, entry, shown, conflict))
            simulated[entry.path] = entry.before
    plan.cannot = list(dict.fromkeys(plan.cannot))
    return plan


def _same_place(path: Path) -> None:
    """Refuse when a folder above ``path`` became a link since it was recorded.

    Recorded paths are real paths; a folder swapped for a link (``rm -r src; ln -s ~/.ssh src``)
    would send the write or the delete somewhere else, outside the workspace even.

    Raises:
        ToolError: a folder on the way is now a link.
    """
    for folder in path.parents:
        if folder.exists() or folder.is_symlink():
            if os.path.realpath(folder) != str(folder):
                raise ToolError(f"{folder} is a link now; left as it is")
            return


def restore_file(action: FileAction) -> str:
    """Put one file back; returns "restored" or "deleted" (or "" when nothing was there)."""
    entry, path = action.entry, Path(action.entry.path)
    _same_place(path)
    if not entry.existed:
        if not os.path.lexists(path):
            result = ""
        elif path.is_dir() and not path.is_symlink():
            raise ToolError("a folder is there now; left as it is")
        else:
            path.unlink()
            result = "deleted"
        for folder in entry.made_dirs:  # deepest first, only when empty
            try:
                os.rmdir(folder)
            except OSError:
                break
        return result
    assert entry.blob is not None
    data = action.record.read_blob(entry.blob)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_dir():
        raise ToolError("a folder or link is there now; left as it is")
    atomic_write(path, data, mode=entry.mode)
    return "restored"


def apply_undo(plan: UndoPlan, *, overwrite: bool = False) -> UndoReport:
    """Carry out a plan, newest turn first; conflicts are skipped unless ``overwrite``.

    A file skipped in a newer turn is skipped in the older ones too (it is not in the state they
    expect). Each record is saved with what was undone, so ``/undo force`` can finish the rest.
    """
    steps = undo_steps(plan, overwrite)
    done: Done = None
    while True:
        try:
            action = steps.send(done)  # the first send(None) starts it
        except StopIteration as finished:
            report: UndoReport = finished.value
            return report
        try:
            done = restore_file(action)
        except (OSError, ToolError) as exc:
            done = exc


# What came of one file action: "restored", "deleted", "" (nothing there), or the error.
Done = str | OSError | ToolError | None


def undo_steps(plan: UndoPlan, overwrite: bool) -> Generator[FileAction, Done, UndoReport]:
    """The bookkeeping of an undo: yields each file action to carry out and is sent what came of
    it (``Done``); returns the report. The sync ``apply_undo``
    and the editor's ``checkpoints/editor.undo_through`` drive it."""
    report = UndoReport(cannot=list(plan.cannot))
    skipped: set[str] = set()
    for action in plan.actions:
        entry = action.entry
        if entry.path in skipped or (action.conflict and not overwrite):
            skipped.add(entry.path)
            report.skipped.append(action.shown)
            continue
        done = yield action
        if isinstance(done, (OSError, ToolError)):
            skipped.add(entry.path)
            reason = done.strerror if isinstance(done, OSError) else str(done)
            report.failed.append(f"{action.shown}: {reason}")
            continue
        entry.undone = True
        if done == "deleted":
            report.deleted.append(action.shown)
        elif done == "restored":
            report.restored.append(action.shown)
    return _reported(plan, report)


def _reported(plan: UndoPlan, report: UndoReport) -> UndoReport:
    for record in plan.records:
        report.commands.extend(record.commands)
        report.untracked_commands.extend(record.untracked_commands)
        record.reported = True
        record.save()
    report.restored = list(dict.fromkeys(report.restored))
    report.deleted = [p for p in dict.fromkeys(report.deleted) if p not in report.restored]
    report.skipped = list(dict.fromkeys(report.skipped))
    return report


def _quoted(prompt: str, limit: int = 60) -> str:
    text = one_line(prompt).strip()
    return "“" + (text[:limit] + "…" if len(text) > limit else text) + "”"


def _names(paths: list[str]) -> str:
    return ", ".join(f"`{one_line(p)}`" for p in paths)


def describe(report: UndoReport, records: list[TurnRecord]) -> str:
    """The /undo and /rewind answer: what was put back, what was left, what cannot be undone."""
    turns = ", ".join(_quoted(r.prompt) for r in records[:3]) + (" …" if len(records) > 3 else "")
    lines = [f"Undid the file changes of {plural(len(records), 'turn')} ({turns})."]
    if report.restored:
        lines.append(f"- Restored: {_names(report.restored)}")
    if report.deleted:
        lines.append(f"- Deleted (the turn created them): {_names(report.deleted)}")
    if not report.restored and not report.deleted:
        lines.append("- No file needed restoring.")
    if report.skipped:
        lines.append(
            f"- Left as they are, changed outside the agent since its last write: "
            f"{_names(report.skipped)} (`/undo force` overwrites them)"
        )
    lines += [f"- Failed: {one_line(f)}" for f in report.failed]
    cannot = [f"{one_line(c)}" for c in report.cannot]
    if report.commands:
        cannot.append(
            "what commands did beyond the tracked files of this git repository (untracked and "
            "ignored files, files outside the workspace, anything else they did): "
            + _names(list(dict.fromkeys(report.commands)))
        )
    if report.untracked_commands:
        cannot.append(
            "anything these commands changed (not a git repository, or run in the background): "
            + _names(list(dict.fromkeys(report.untracked_commands)))
        )
    if cannot:
        # A blank line first: in Markdown a line right after a list item continues that item.
        lines += ["", "Cannot be undone:"]
        lines += [f"- {c}" for c in cannot]
    return "\n".join(lines)
