"""Apply parsed ``*** Begin Patch`` operations all-or-nothing.

``plan_patch`` reads every file and computes every result in memory, checking every hunk; only a
plan with no error is written by ``write_plan``: new contents go to temp files beside their targets
first, then each is renamed into place. A failure before the renames changes nothing.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.errors import ToolError
from agent_tui.tools.file_access import Reader
from agent_tui.tools.fs_util import (
    Edit,
    TextFile,
    check_file,
    edits_diff,
    new_file_mode,
    read_text_for_edit,
    unified_diff,
)
from agent_tui.tools.patch_parse import AddFile, DeleteFile, FileOp, Hunk, UpdateFile

# Unicode punctuation models emit in place of ASCII (the last matching pass, as in Codex).
_PUNCT = str.maketrans(
    {
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)

# Line comparisons, strictest first: the first pass that finds the lines wins.
_PASSES: tuple[Callable[[str], str], ...] = (
    lambda s: s,
    str.rstrip,
    str.strip,
    lambda s: s.translate(_PUNCT).strip(),
)


class PatchApplyError(ToolError):
    """A hunk does not fit its file, or a file operation is impossible."""


@dataclass
class FileChange:
    """The planned end state of one path and how to write it."""

    path: Path
    shown: str
    before: str | None  # None: the file does not exist now
    after: str | None  # None: the file is deleted
    template: TextFile | None = None  # encoding / newline / mode to keep; None: UTF-8, LF
    moved_from: str | None = None  # this file is the destination of a move
    moved_to: str | None = None  # this file is the source of a move
    moved_before: str | None = None  # a move's destination: the source's text before the patch
    # The hunks' edits as (line, count, new lines) on ``before``, when they are the only change:
    # a diff straight from them costs nothing, where difflib takes ~100 ms on a 20,000-line file.
    edits: list[Edit] | None = None

    @property
    def action(self) -> str:
        return "A" if self.before is None else "D" if self.after is None else "M"

    def encoded(self) -> bytes:
        assert self.after is not None
        return self.template.encode(self.after) if self.template else self.after.encode("utf-8")


@dataclass
class PatchPlan:
    """A checked patch: the change to each file it touches, before anything is written."""

    changes: dict[Path, FileChange] = field(default_factory=dict)

    def summary(self) -> list[str]:
        """``A path`` / ``M path`` / ``D path`` lines, moves shown once at their destination."""
        return [
            f"{c.action} {c.shown}" + (f" (moved from {c.moved_from})" if c.moved_from else "")
            for c in self.changes.values()
            if c.moved_to is None
        ]

    def diff(self) -> str:
        parts = []
        for change in self.changes.values():
            if change.moved_to is not None:
                continue  # shown as part of its destination's diff
            before, old_shown = change.before, change.shown
            if change.moved_from is not None:
                before, old_shown = change.moved_before, change.moved_from
            if change.edits is not None and before is not None:
                parts.append(edits_diff(before, change.edits, change.shown, old_shown))
            else:
                parts.append(unified_diff(before, change.after, change.shown, old_shown=old_shown))
        return "".join(parts)


Resolver = Callable[[str], tuple[Path, str]]
Guard = Callable[[Path, str], None]


def plan_patch(
    ops: list[FileOp], resolve: Resolver, guard: Guard, read: Reader = read_text_for_edit
) -> PatchPlan:
    """Compute every file's new content without writing anything.

    Args:
        ops: the parsed operations, applied in order (a later op sees an earlier one's result).
        resolve: patch path -> (absolute path, path to show); raises ToolError outside the workspace.
        guard: called with each existing file about to change; raises ToolError to refuse it
            (e.g. it changed on disk since the agent read it).
        read: an existing file's text for the edit (the disk's, or the editor's buffer).

    Raises:
        ToolError: any operation fails; the message names the file and the hunk.
    """
    planner = _Planner(resolve, guard, read)
    for op in ops:
        path, shown = resolve(op.path)
        if isinstance(op, AddFile):
            added = planner.load(path, shown, need_text=False)
            added.after, added.edits = op.content, None
        else:
            planner.change(op, path, shown)
    return planner.plan


class _Planner:
    """The files' planned states as the operations are applied one by one."""

    def __init__(self, resolve: Resolver, guard: Guard, read: Reader) -> None:
        self.plan = PatchPlan()
        self.resolve = resolve
        self.guard = guard
        self.read = read

    def load(self, path: Path, shown: str, *, need_text: bool) -> FileChange:
        """The planned state of ``path`` so far, loading it from disk on first touch."""
        if path in self.plan.changes:
            return self.plan.changes[path]
        if path.is_dir():
            raise PatchApplyError(f"{shown} is a directory, not a file.")
        if not path.exists():
            change = FileChange(path, shown, None, None)
        else:
            self.guard(path, shown)
            try:
                original = self.read(path, shown)
                change = FileChange(path, shown, original.text, original.text, original)
            except ToolError:
                if need_text:
                    raise
                check_file(path, shown)  # deleting or replacing a binary file is fine
                change = FileChange(path, shown, "", "")
        self.plan.changes[path] = change
        return change

    def change(self, op: UpdateFile | DeleteFile, path: Path, shown: str) -> None:
        """Delete the file, or apply the hunks (and move it when the op says so)."""
        change = self.load(path, shown, need_text=isinstance(op, UpdateFile))
        if change.after is None:
            verb = "delete" if isinstance(op, DeleteFile) else "update"
            raise PatchApplyError(
                f"Cannot {verb} {shown}: it does not exist. Check the path with file_search, or use "
                f"'*** Add File: {op.path}' to create it."
            )
        if isinstance(op, DeleteFile):
            change.after, change.edits = None, None
            return
        pristine = change.after is change.before
        new_text, edits = apply_hunks(change.after, op.hunks, shown)
        dest, dest_shown = self.resolve(op.move_to) if op.move_to else (path, shown)
        if dest == path:
            change.after, change.edits = new_text, edits if pristine else None
            return
        target = self.load(dest, dest_shown, need_text=False)
        target.after, target.template, target.moved_from = new_text, change.template, shown
        target.moved_before = change.before
        target.edits = edits if pristine else None
        change.after, change.moved_to = None, dest_shown


def apply_hunks(text: str, hunks: list[Hunk], shown: str) -> tuple[str, list[Edit]]:
    """Apply update hunks to ``text`` (``\\n`` line endings); the result ends with a newline.

    Returns:
        The new text and the edits made, sorted by line.

    Raises:
        PatchApplyError: a hunk's anchor or lines are not found; names the file and the hunk.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    cache: dict[int, list[str]] = {}
    replacements: list[tuple[int, int, list[str]]] = []
    cursor = 0
    for hunk in hunks:
        cursor = _after_anchors(lines, hunk, cursor, cache, shown)
        replacement = _place_hunk(lines, hunk, cursor, cache, shown)
        replacements.append(replacement)
        if hunk.old:
            cursor = replacement[0] + replacement[1]
    replacements.sort(key=lambda r: r[0])
    for start, length, new in reversed(replacements):
        lines[start : start + length] = new
    return "\n".join(lines) + "\n", replacements


def _after_anchors(
    lines: list[str], hunk: Hunk, cursor: int, cache: dict[int, list[str]], shown: str
) -> int:
    """The line after the hunk's last ``@@`` anchor, each found after the one before."""
    for anchor in hunk.anchors:
        found = _seek(lines, [anchor], cursor, False, cache)
        if found is None:
            raise PatchApplyError(
                f"{shown}, {hunk.label}: the @@ line '{anchor}' was not found"
                f"{' after line ' + str(cursor) if cursor else ''}.{_closest(lines, [anchor])}"
            )
        cursor = found + 1
    return cursor


def _place_hunk(
    lines: list[str], hunk: Hunk, cursor: int, cache: dict[int, list[str]], shown: str
) -> tuple[int, int, list[str]]:
    """Where the hunk's old lines are (at or after ``cursor``): (start, length, new lines)."""
    old, new, kept = hunk.old, list(hunk.new), list(hunk.kept)
    if not old:
        # Pure addition: after the anchor if there is one, else at the end of the file.
        return (cursor if hunk.anchors else len(lines)), 0, list(new)
    found = _seek(lines, old, cursor, hunk.at_eof, cache)
    if found is None and old[-1] == "":
        # A trailing blank context line is often a stray separator, not part of the file.
        old = old[:-1]
        if new and new[-1] == "":
            new, kept = new[:-1], kept[:-1]
        kept = [None if k == len(old) else k for k in kept]
        found = _seek(lines, old, cursor, hunk.at_eof, cache) if old else None
    if found is None:
        where = "at the end of the file" if hunk.at_eof else "in the file"
        shown_old = "\n".join(hunk.old[:12]) + ("\n..." if len(hunk.old) > 12 else "")
        raise PatchApplyError(
            f"{shown}, {hunk.label}: these lines were not found {where}"
            f"{' after line ' + str(cursor) if cursor else ''}:\n{shown_old}"
            f"{_closest(lines, hunk.old)}\nRead the file again and resend the whole patch."
        )
    # Context lines may have matched only after normalising: write the file's own line back,
    # never the patch's version of it (indentation, dashes, trailing spaces stay as they were).
    new = [text if k is None else lines[found + k] for text, k in zip(new, kept, strict=True)]
    return found, len(old), new


def _seek(
    lines: list[str], pattern: list[str], start: int, at_eof: bool, cache: dict[int, list[str]]
) -> int | None:
    """Index where ``pattern`` occurs in ``lines`` at or after ``start``, trying each pass in turn."""
    count = len(pattern)
    if count > len(lines):
        return None
    if at_eof:
        start = max(start, len(lines) - count)
    last = len(lines) - count
    for number, normalise in enumerate(_PASSES):
        if number not in cache:
            cache[number] = lines if number == 0 else [normalise(line) for line in lines]
        haystack = cache[number]
        wanted = pattern if number == 0 else [normalise(p) for p in pattern]
        first = wanted[0]
        index = start
        while index <= last:
            try:
                index = haystack.index(first, index, last + 1)
            except ValueError:
                break
            if haystack[index : index + count] == wanted:
                return index
            index += 1
    return None


def _closest(lines: list[str], wanted: list[str]) -> str:
    """A hint: the file's lines most like the first non-blank wanted line, with line numbers."""
    probe = next((w for w in wanted if w.strip()), "")
    if not probe or not lines:
        return ""
    stripped = [line.strip() for line in lines]
    matches = difflib.get_close_matches(probe.strip(), stripped, n=1, cutoff=0.5)
    if not matches:
        return ""
    at = stripped.index(matches[0])
    window = lines[max(at - 1, 0) : at + len(wanted) + 1]
    numbered = "\n".join(f"{max(at - 1, 0) + i + 1}: {line}" for i, line in enumerate(window))
    return f"\nClosest lines in the file:\n{numbered}"


def write_plan(plan: PatchPlan) -> None:
    """Write a checked plan: stage every new file beside its target, then rename them all in.

    Raises:
        ToolError: staging failed (nothing changed) — or, rarely, a rename failed midway.
    """
    staged: list[tuple[Path, Path]] = []
    made_dirs: list[Path] = []
    try:
        for change in plan.changes.values():
            if change.after is None:
                continue
            made_dirs.extend(_make_parents(change.path.parent))
            mode = change.template.mode if change.template else None
            fd, tmp_name = tempfile.mkstemp(
                dir=change.path.parent, prefix=f".{change.path.name}.", suffix=".tmp"
            )
            staged.append((Path(tmp_name), change.path))  # before writing: a failure cleans it up
            with os.fdopen(fd, "wb") as handle:
                handle.write(change.encoded())
            os.chmod(tmp_name, mode if mode is not None else new_file_mode())
    except OSError as exc:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        for folder in reversed(made_dirs):
            _rmdir_quiet(folder)
        raise ToolError(
            f"Could not write the patch ({exc.strerror or exc}); nothing was changed."
        ) from None
    try:
        for tmp, target in staged:
            os.replace(tmp, target)
        for change in plan.changes.values():
            if change.after is None and change.path.exists():
                change.path.unlink()
    except OSError as exc:
        raise ToolError(
            f"Writing the patch failed part-way: {exc}. Check the files listed."
        ) from None


def _make_parents(folder: Path) -> list[Path]:
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for part in reversed(missing):
        part.mkdir()
    return list(reversed(missing))


def _rmdir_quiet(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass  # not empty or already gone: leave it
