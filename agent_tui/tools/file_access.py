"""Where the file tools read a workspace file's text and write it back: the disk (``LocalFiles``,
the default) or, under ``agent-tui acp`` with a client that offers it, the user's editor
(``acp/client_files.py``), so unsaved buffers are what the model reads and edits land in them.

Tools reach it as ``ctx.session.files``; a front end sets it through ``Front.use_editor``. Everything else stays the tools' own: the workspace
check (``ctx.resolve``, before any read), the approvals, the checkpoints. A tool's ``prepare`` is
synchronous, so a tool that plans from a file's text gathers the texts first (``preload``) and
plans from what was gathered (``prepare_async``, which the executor prefers).
"""

from __future__ import annotations

import asyncio
import stat
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Protocol

from agent_tui.errors import ToolError
from agent_tui.tools.fs_util import (
    MAX_EDIT_BYTES,
    SNIFF_BYTES,
    TextFile,
    atomic_write,
    check_file,
    detect_newline,
    human_size,
    read_text_for_edit,
)
from agent_tui.tools.workspace_paths import require_inside

# A file's text for an edit, given its resolved path and its path as the model sees it.
Reader = Callable[[Path, str], TextFile]
# The editor's side: a file's text, and writing it (raising ToolError with the editor's reason).
ReadRemote = Callable[[Path], Awaitable[str]]
WriteRemote = Callable[[Path, str], Awaitable[None]]


class FileAccess(Protocol):
    # True: reads and writes go to the user's editor (no whole-patch atomicity, no deletes there).
    editor: bool

    async def read(self, path: Path, shown: str) -> TextFile:
        """The file's whole text.

        Raises:
            ToolError: missing, a folder, binary, too large, unreadable or refused by the editor.
        """
        ...

    async def write(self, path: Path, shown: str, text: str, template: TextFile | None) -> None:
        """Write ``text`` (``\\n`` line endings) to ``path``, stored as ``template`` was (its
        encoding, line endings and mode; None: a new UTF-8 file), creating missing folders.

        Raises:
            ToolError: the write failed, with what to tell the model.
        """
        ...


class LocalFiles:
    """The disk, as the tools have always read and written it."""

    editor = False

    async def read(self, path: Path, shown: str) -> TextFile:
        return await asyncio.to_thread(read_text_for_edit, path, shown)

    async def write(self, path: Path, shown: str, text: str, template: TextFile | None) -> None:
        await asyncio.to_thread(write_local, path, shown, text, template)


class EditorFiles:
    """The user's editor (``fs/read_text_file``, ``fs/write_text_file`` under ACP) where it
    offers each, the disk where it does not.

    Tools check a path against the workspace before reading it; this checks again, so the
    editor is never asked about a path outside it. What the disk alone can say (missing, a
    folder, a device) is asked of the disk first, with the tools' usual messages.
    """

    editor = True

    def __init__(
        self,
        workspace: Path,
        read: ReadRemote | None,
        write: WriteRemote | None,
        extra_roots: list[Path] | None = None,
    ):
        self._workspace = workspace
        # The session's own list (SessionState.extra_roots): an /add-dir later counts here too.
        self._extra_roots = extra_roots if extra_roots is not None else []
        self._read, self._write = read, write
        self._local = LocalFiles()

    async def read(self, path: Path, shown: str) -> TextFile:
        if self._read is None:
            return await self._local.read(path, shown)
        require_inside(self._workspace, str(path), self._extra_roots)
        st = check_file(path, shown)
        try:
            content = await self._read(path)
        except ToolError as exc:
            raise ToolError(f"The editor could not read {shown}: {exc}.") from None
        return _editor_text(content, shown, stat.S_IMODE(st.st_mode))

    async def write(self, path: Path, shown: str, text: str, template: TextFile | None) -> None:
        if self._write is None:
            await self._local.write(path, shown, text, template)
            return
        require_inside(self._workspace, str(path), self._extra_roots)
        if template is None:
            await asyncio.to_thread(make_parents, path, shown)
        elif template.newline != "\n":
            text = text.replace("\r\n", "\n").replace("\n", template.newline)
        try:
            await self._write(path, text)
        except ToolError as exc:
            raise ToolError(
                f"The editor refused to write {shown}: {exc}. {shown} was not changed by this "
                "call; tell the user, or try another way."
            ) from None


def _editor_text(content: str, shown: str, mode: int) -> TextFile:
    """The editor's text of a file, as an edit holds it (``\\n`` line endings)."""
    if len(content) > MAX_EDIT_BYTES:
        raise ToolError(
            f"{shown} is {human_size(len(content))} in the editor; files over "
            f"{human_size(MAX_EDIT_BYTES)} cannot be edited with this tool."
        )
    if "\x00" in content[:SNIFF_BYTES]:
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text.")
    newline = detect_newline(content)
    text = content.replace("\r\n", "\n") if newline == "\r\n" else content
    return TextFile(text=text, encoding="utf-8", newline=newline, mode=mode)


def write_local(path: Path, shown: str, text: str, template: TextFile | None) -> None:
    """Write a file's text to disk atomically (blocking), keeping what ``template`` kept."""
    if template is not None:
        atomic_write(path, template.encode(text), mode=template.mode)
        return
    make_parents(path, shown)
    atomic_write(path, text.encode("utf-8"))


def make_parents(path: Path, shown: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except PermissionError:
        raise ToolError(f"Permission denied creating the folder for {shown}.") from None
    except OSError as exc:
        raise ToolError(f"Cannot create the folder for {shown}: {exc.strerror or exc}.") from None


async def preload(files: FileAccess, targets: Iterable[tuple[Path, str]]) -> Reader:
    """Read the texts of ``targets`` that exist as files now; the returned reader answers from
    them (and reads anything else, or a missing file's error, from disk as before)."""
    texts: dict[Path, TextFile] = {}
    for path, shown in targets:
        if path not in texts and path.is_file():
            texts[path] = await files.read(path, shown)

    def read(path: Path, shown: str) -> TextFile:
        known = texts.get(path)
        return known if known is not None else read_text_for_edit(path, shown)

    return read
