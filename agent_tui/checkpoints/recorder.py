"""Recording a turn's checkpoint as its tools run.

The agent loop calls :meth:`Checkpoints.begin_turn` when a turn's prompt joins the conversation,
and :meth:`Checkpoints.around_call` wraps every tool call that may change files:

- the built-in edit tools (``create_file``, ``replace_string_in_file``, ``apply_patch``) name the
  paths they will write in ``Prepared.paths`` (a patch's move sources and targets and its deletes
  included): each is snapshotted before the turn's first change to it;
- any other call that is not one of our read-only tools (``run_in_terminal``, and every MCP
  tool, ``readOnlyHint`` or not: a server's hint is only its claim) is watched with ``git status``
  before and after (see ``gitstate``).

After each call the state of what it touched is recorded, so /undo can tell the agent's last write
from a later hand edit. Recording never stops a tool: what could not be saved is written down as
such and /undo says so.
"""

from __future__ import annotations

import asyncio
import logging
import os
import stat
import threading
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.checkpoints import gitstate
from agent_tui.checkpoints.editor import Seen, editor_bytes
from agent_tui.checkpoints.store import (
    TOO_LARGE,
    UNKNOWN,
    FileEntry,
    TurnRecord,
    file_state,
    list_records,
    prune,
    state_of,
    workspace_key,
)
from agent_tui.errors import AgentError
from agent_tui.paths import state_dir
from agent_tui.safe_read import read_bytes
from agent_tui.state_files import write_failed
from agent_tui.tools.base import Manifest, Prepared
from agent_tui.tools.file_access import FileAccess
from agent_tui.tools.fs_util import human_size

logger = logging.getLogger(__name__)

EDIT_TOOLS = frozenset({"create_file", "replace_string_in_file", "apply_patch"})
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """``[checkpoints]`` in .agentrc."""

    enabled: bool = True
    max_bytes: int = 500 * MB  # every checkpoint of one workspace together
    max_file_bytes: int = 10 * MB  # one file; a bigger one is recorded as not snapshotted

    @classmethod
    def from_config(cls, config: Any) -> Limits:
        section = config.section("checkpoints") if config is not None else None
        section = section if isinstance(section, dict) else {}
        return cls(
            enabled=bool(section.get("enabled", True)),
            max_bytes=int(float(section.get("max_mb", 500)) * MB),
            max_file_bytes=int(float(section.get("max_file_mb", 10)) * MB),
        )


def new_run_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + os.urandom(3).hex()  # as secrets.token_hex(3)


class Checkpoints:
    """The checkpoints of one agent (one conversation) in one workspace.

    Args:
        workspace: the workspace folder.
        limits: size bounds and the on/off switch.
        root: ``<state>/checkpoints`` (default: the user's state dir).
        run_id: the conversation's id (a session id once sessions exist; else one per run).
    """

    def __init__(
        self,
        workspace: Path,
        limits: Limits | None = None,
        *,
        root: Path | None = None,
        run_id: str | None = None,
    ) -> None:
        self.workspace = Path(os.path.realpath(workspace))
        self.limits = limits or Limits()
        self.folder = (root or state_dir() / "checkpoints") / workspace_key(self.workspace)
        self.run_id = run_id or new_run_id()
        self.prompts: dict[int, str] = {}  # turn index -> the text the user typed
        self._turn: int | None = None
        self._record: TurnRecord | None = None
        self._lock = threading.Lock()

    # ---- turns ---------------------------------------------------------------------------

    def begin_turn(self, index: int, prompt: str) -> None:
        """A turn starts; ``index`` is its user message's index in the conversation."""
        self._turn, self._record = index, None
        self.prompts[index] = prompt

    def end_turn(self) -> None:
        """Keep the workspace's checkpoints within ``max_mb`` (oldest turns go first)."""
        if self._record is not None:
            try:
                prune(self.folder, self.limits.max_bytes, keep=self._record.folder)
            except OSError as exc:
                logger.warning("pruning checkpoints failed: %s", exc)
        self._turn, self._record = None, None

    def new_run(self) -> None:
        """A new conversation (/clear, /new): its turn numbers start again."""
        self.run_id = new_run_id()
        self.prompts.clear()

    def attach_run(self, run_id: str) -> None:
        """File this conversation's turns under ``run_id`` (its session): after ``--continue``,
        ``/undo`` and ``/rewind`` still find the turns of the earlier runs."""
        self.run_id = run_id
        self.prompts = {record.turn: record.prompt for record in self.records()}

    def rewound(self, index: int) -> None:
        """/rewind cut the conversation at message ``index``: the turns from there on are no
        longer in it (saved, so a resumed session knows too). A later turn may take the same
        index: only the turn now at an index is named by it (``targets.turns_named``)."""
        for record in self.records():
            if record.turn >= index and not record.rewound:
                record.rewound = True
                record.save()

    def records(self) -> list[TurnRecord]:
        """This conversation's records, oldest first."""
        return list_records(self.folder, self.run_id)

    def workspace_records(self) -> list[TurnRecord]:
        """Every record of this workspace (every run), oldest first."""
        return list_records(self.folder)

    # ---- recording -----------------------------------------------------------------------

    def _ensure_record(self) -> TurnRecord | None:
        if self._turn is None:
            return None
        if self._record is None:
            created = time.time_ns()
            # The folder is made by the first save (0700 all the way up): a turn whose commands
            # changed no tracked file leaves none.
            folder = self.folder / self.run_id / f"{self._turn:05d}-{created}"
            prompt = self.prompts.get(self._turn, "")
            self._record = TurnRecord(folder, self.run_id, self._turn, prompt, created)
        return self._record

    def _new_entry(self, record: TurnRecord, path: Path, seen: bytes | None) -> FileEntry:
        """``path`` as it is before the turn changes it: ``seen`` (the editor's text of it) or
        the disk's bytes."""
        try:
            st = path.lstat()
        except FileNotFoundError:
            return FileEntry(str(path), False, made_dirs=self._missing_dirs(path))
        if not stat.S_ISREG(st.st_mode):
            return FileEntry(str(path), True, status=UNKNOWN, note="not a regular file")
        if st.st_size > self.limits.max_file_bytes:
            limit = human_size(self.limits.max_file_bytes)
            return FileEntry(
                str(path), True, status=TOO_LARGE, note=f"larger than the {limit} snapshot limit"
            )
        try:  # read without following a link, and refused if swapped for a FIFO since the lstat
            data = seen if seen is not None else self._disk_bytes(path)
        except OSError as exc:
            return FileEntry(str(path), True, status=UNKNOWN, note=str(exc.strerror or exc))
        blob = record.save_blob(data)
        return FileEntry(str(path), True, stat.S_IMODE(st.st_mode), blob)

    def _disk_bytes(self, path: Path) -> bytes:
        return read_bytes(path, self.limits.max_file_bytes, follow_symlinks=False)

    def _missing_dirs(self, path: Path) -> list[str]:
        missing: list[str] = []
        for parent in path.parents:
            if parent == self.workspace or parent.exists():
                break
            missing.append(str(parent))
        return missing

    def before_write(self, paths: Iterable[Path], seen: Seen | None = None) -> None:
        """Snapshot each path the turn has not changed yet (content + mode, or "did not exist");
        ``seen``: the editor's text of some of them, which is what the model edits."""
        record = self._ensure_record()
        if record is None:
            return
        for path in paths:
            if str(path) in record.files:
                continue
            try:
                record.files[str(path)] = self._new_entry(record, path, (seen or {}).get(path))
            except OSError as exc:
                record.files[str(path)] = FileEntry(
                    str(path), True, status=UNKNOWN, note=f"could not be copied ({exc.strerror})"
                )
        record.save()

    def after_write(self, paths: Iterable[Path], seen: Seen | None = None) -> None:
        """Record each path's state right after the agent's change (as the editor has it, for
        the paths in ``seen``)."""
        record = self._record
        if record is None:
            return
        for path in paths:
            entry = record.files.get(str(path))
            if entry is not None:
                known = (seen or {}).get(path)
                entry.after = file_state(path) if known is None else state_of(known)
                entry.undone = False
        record.save()

    def before_command(self) -> gitstate.CommandWatch | None:
        record = self._ensure_record()
        skip = {Path(p) for p in record.files} if record is not None else set()
        return gitstate.watch_before(self.workspace, skip, self.limits.max_file_bytes)

    def after_command(
        self, watch: gitstate.CommandWatch | None, command: str, claims_read_only: bool = False
    ) -> None:
        """Record the tracked files the command changed, with what they held before it.

        Outside git a tool that ``claims_read_only`` (an MCP readOnlyHint) is not listed among
        the commands /undo cannot undo: nothing says it wrote, and every read would be listed.
        """
        record = self._ensure_record()
        if record is None:
            return
        if watch is None and claims_read_only:
            return
        if watch is None:
            record.untracked_commands.append(command)
            record.save()
            return
        record.commands.append(command)
        changed = gitstate.changed_by_command(watch)
        for path in sorted(changed):
            if not path.is_relative_to(self.workspace):
                continue
            now = file_state(path)
            entry = record.files.get(str(path))
            if entry is None:
                entry = self._command_entry(record, watch, path, now)
                if entry is None:
                    continue
                record.files[str(path)] = entry
            entry.after, entry.undone = now, False
        if record.files or record.untracked_commands:
            record.save()

    def _command_entry(
        self, record: TurnRecord, watch: gitstate.CommandWatch, path: Path, now: str
    ) -> FileEntry | None:
        """What ``path`` held before the command, or None when the command did not change it."""
        copy = watch.dirty.get(path)
        if copy is not None:
            if copy.state == now:
                return None
            if copy.data is None:
                return FileEntry(
                    str(path),
                    True,
                    status=UNKNOWN,
                    note="was already changed (not by the agent) before a command changed it, "
                    "and was too large to copy",
                )
            return FileEntry(str(path), True, copy.mode, record.save_blob(copy.data))
        committed = gitstate.committed_content(watch.git, watch.head, watch.top, path)
        if committed is None:
            return FileEntry(
                str(path),
                True,
                status=UNKNOWN,
                note="a command changed it and it was not in the last commit (untracked before?)",
            )
        data, mode = committed
        if len(data) > self.limits.max_file_bytes:
            limit = human_size(self.limits.max_file_bytes)
            return FileEntry(
                str(path), True, status=TOO_LARGE, note=f"larger than the {limit} snapshot limit"
            )
        return FileEntry(str(path), True, mode, record.save_blob(data))

    # ---- the seam the agent's call processor uses ----------------------------------------

    @asynccontextmanager
    async def around_call(
        self,
        manifest: Manifest,
        value: dict[str, Any],
        prepared: Prepared,
        files: FileAccess | None = None,
    ) -> AsyncIterator[None]:
        """Snapshot before a tool call that may change files; record the result after it. An
        edit through the editor (``files``) is snapshot as the editor has the files."""
        built_in = manifest.source == "built-in"
        # Only our own tools are taken at their word: an MCP server's readOnlyHint is its claim,
        # and such a tool runs unasked, so it is watched like a command whatever it says.
        if not self.limits.enabled or (
            built_in and (manifest.read_only or manifest.kind == "fetch")
        ):
            yield
            return
        if built_in and manifest.name in EDIT_TOOLS:
            if prepared.changes_nothing:
                yield
                return
            paths = list(prepared.paths)
            editor = files if files is not None and files.editor else None
            await self._guarded(self.before_write, paths, await editor_bytes(editor, paths))
            try:
                yield
            finally:
                await self._guarded(self.after_write, paths, await editor_bytes(editor, paths))
            return
        if manifest.name == "run_in_terminal" and built_in and value.get("is_background") is True:
            await self._guarded(self._note_background, str(value.get("command", manifest.name)))
            yield
            return
        watch = await self._guarded(self.before_command)
        try:
            yield
        finally:
            label = value.get("command") if manifest.name == "run_in_terminal" else None
            await self._guarded(
                self.after_command, watch, str(label or manifest.name), manifest.read_only
            )

    def _note_background(self, command: str) -> None:
        record = self._ensure_record()
        if record is not None:
            record.untracked_commands.append(f"{command} (in the background)")
            record.save()

    def _locked(self, func: Any, *args: Any) -> Any:
        # Read-only calls run side by side, and MCP ones are watched too: one step at a time, so
        # two of them never write the turn's record at once.
        with self._lock:
            return func(*args)

    async def _guarded(self, func: Any, *args: Any) -> Any:
        # A state dir that cannot be written (or git failing) must not stop the user's work: the
        # failure is logged and the call runs; /undo then finds no record of it.
        try:
            return await asyncio.to_thread(self._locked, func, *args)
        except (OSError, AgentError) as exc:
            logger.exception("checkpoint step %s failed", getattr(func, "__name__", func))
            if isinstance(exc, OSError):
                write_failed("checkpoints", exc, "/undo cannot take back this turn's changes")
            return None
