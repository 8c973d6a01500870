"""apply_patch: edit, add, delete and move files with one ``*** Begin Patch`` text, all-or-nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.tools.base import BaseTool, Confirmation, Prepared, ToolContext, ToolResult
from agent_tui.tools.file_access import FileAccess, Reader, preload
from agent_tui.tools.fs_args import require_str
from agent_tui.tools.fs_util import diff_block, read_text_for_edit
from agent_tui.tools.patch_apply import PatchPlan, plan_patch, write_plan
from agent_tui.tools.patch_parse import UpdateFile, parse_patch

_FAILED = "apply_patch failed; nothing was changed."


async def _plan_read(input: Any, ctx: ToolContext) -> PatchPlan:
    """The plan, from the texts of the files it updates as ``ctx.session.files`` has them."""
    ops = parse_patch(require_str(input, "input"))
    try:
        updated = [_resolver(ctx)(op.path) for op in ops if isinstance(op, UpdateFile)]
        read = await preload(ctx.session.files, updated)
    except ToolError as exc:
        raise ToolError(f"{_FAILED} {exc}") from None
    return await asyncio.to_thread(_plan, input, ctx, read)  # hunks over a big file take a while


def _resolver(ctx: ToolContext) -> Callable[[str], tuple[Path, str]]:
    def resolve(raw: str) -> tuple[Path, str]:
        path = ctx.resolve(raw)
        return path, ctx.relative(path)

    return resolve


def _plan(input: Any, ctx: ToolContext, read: Reader = read_text_for_edit) -> PatchPlan:
    text = require_str(input, "input")
    ops = parse_patch(text)

    def guard(path: Path, shown: str) -> None:
        if ctx.session.changed_since_seen(path):
            raise ToolError(
                f"{shown} changed on disk since you last read it; read it again (read_file) and "
                "resend the patch against its current content."
            )

    try:
        return plan_patch(ops, _resolver(ctx), guard, read)
    except ToolError as exc:
        raise ToolError(f"{_FAILED} {exc}") from None


_CACHE = "apply_patch.prepared_plan"  # SessionState.extras key

Stamp = tuple[int, int, int] | None


def _stamps(plan: PatchPlan) -> tuple[Stamp, ...]:
    """What each planned path looks like on disk now (None: absent)."""
    stamps: list[Stamp] = []
    for path in plan.changes:
        try:
            st = path.stat()
            stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
        except OSError:
            stamps.append(None)
    return tuple(stamps)


def _remember_plan(input: Any, ctx: ToolContext, plan: PatchPlan) -> None:
    key = (str(ctx.workspace), input.get("input"))
    ctx.session.extras[_CACHE] = (key, _stamps(plan), plan)


def _reuse_plan(input: Any, ctx: ToolContext) -> PatchPlan | None:
    """The plan prepare() made for this very patch, if no file it touches changed since."""
    cached = ctx.session.extras.pop(_CACHE, None)
    if not isinstance(input, dict) or cached is None:
        return None
    key, stamps, plan = cached
    if key != (str(ctx.workspace), input.get("input")) or stamps != _stamps(plan):
        return None
    assert isinstance(plan, PatchPlan)
    return plan


def _touched(plan: PatchPlan) -> list[str]:
    return [c.shown for c in plan.changes.values() if c.moved_to is None]


async def _write_through(files: FileAccess, plan: PatchPlan) -> None:
    """Write a plan's files through the editor, one by one (the protocol has no batch), then
    delete what it deletes or moves away, on disk (the protocol has no delete)."""
    for change in plan.changes.values():
        if change.after is not None:
            await files.write(change.path, change.shown, change.after, change.template)
    for change in plan.changes.values():
        if change.after is None:
            try:
                change.path.unlink(missing_ok=True)
            except OSError as exc:
                raise ToolError(f"Cannot delete {change.shown}: {exc.strerror or exc}.") from None


class ApplyPatchTool(BaseTool):
    """Apply a multi-file patch in the Codex ``*** Begin Patch`` format."""

    name = "apply_patch"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(input, ctx, _plan(input, ctx))

    async def prepare_async(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(input, ctx, await _plan_read(input, ctx))

    @staticmethod
    def _prepared(input: dict[str, Any], ctx: ToolContext, plan: PatchPlan) -> Prepared:
        # Planning reads the files the patch touches (usually few and small) so that a bad patch
        # fails before the user is asked, and the confirmation shows the real diff.
        _remember_plan(input, ctx, plan)
        files = _touched(plan)
        target = files[0] if len(files) == 1 else f"{len(files)} files"
        return Prepared(
            invocation_message=f"Editing {target}",
            past_tense_message=f"Edited {target}",
            confirmation=Confirmation(
                title=f"Apply patch to {target}?",
                message="\n".join(f"- `{line}`" for line in plan.summary())
                + "\n\n"
                + diff_block(plan.diff()),
            ),
            paths=tuple(plan.changes),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        # prepare()'s plan is reused only if no file it touches changed while the user looked at
        # the confirmation; otherwise everything is checked again.
        files = ctx.session.files
        # An editor's buffer may change with no trace on disk: its plan is always made again.
        plan = None if files.editor else _reuse_plan(input, ctx)
        if plan is None:
            plan = await _plan_read(input, ctx)
        if files.editor:
            await _write_through(files, plan)
        else:
            await asyncio.to_thread(write_plan, plan)
        for change in plan.changes.values():
            if change.after is not None:
                ctx.session.remember(change.path)
            else:
                ctx.session.file_stamps.pop(change.path, None)
        summary = plan.summary()
        return ToolResult(
            "Patch applied. Changed files:\n" + "\n".join(summary),
            display=plan.diff(),
            data={"files": _touched(plan)},
        )
