"""create_file: write a new file (parents created), never clobbering one the agent has not read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.plural import plural
from agent_tui.tools.base import BaseTool, Confirmation, Prepared, ToolContext, ToolResult
from agent_tui.tools.file_access import Reader, preload
from agent_tui.tools.fs_args import require_str
from agent_tui.tools.fs_util import TextFile, diff_block, read_text_for_edit, unified_diff


@dataclass(frozen=True)
class CreatePlan:
    """A checked create_file call: the path, the new content and the file it overwrites."""

    path: Path
    shown: str
    content: str  # with "\n" line endings when overwriting a CRLF file (encode() restores them)
    existing: TextFile | None  # the file being overwritten (read in this session), if any

    @property
    def unchanged(self) -> bool:
        """Overwriting would write the bytes already on disk (same text, encoding and endings)."""
        return self.existing is not None and self.existing.text == self.content

    def diff(self) -> str:
        return unified_diff(self.existing.text if self.existing else None, self.content, self.shown)


async def _plan_read(input: Any, ctx: ToolContext) -> CreatePlan:
    """The plan, with the file's text (if it exists) as ``ctx.session.files`` has it."""
    path = ctx.resolve(require_str(input, "path"))
    return _plan(input, ctx, await preload(ctx.session.files, [(path, ctx.relative(path))]))


def _plan(input: Any, ctx: ToolContext, read: Reader = read_text_for_edit) -> CreatePlan:
    path = ctx.resolve(require_str(input, "path"))
    content = require_str(input, "content", allow_empty=True)
    shown = ctx.relative(path)
    if path == ctx.workspace.resolve() or path.is_dir():
        raise ToolError(f"{shown} is a folder; give the path of a file to create inside it.")
    for parent in path.parents:
        if parent.exists() and not parent.is_dir():
            raise ToolError(
                f"Cannot create {shown}: {ctx.relative(parent)} is a file, not a folder."
            )
        if parent.exists():
            break
    if not path.exists():
        return CreatePlan(path, shown, content, None)
    seen = ctx.session.changed_since_seen(path)
    if seen is None:
        raise ToolError(
            f"{shown} already exists and you have not read it in this session. Edit it with "
            "replace_string_in_file or apply_patch; to replace it whole, read it first with "
            "read_file, then call create_file again."
        )
    if seen:
        raise ToolError(
            f"{shown} changed on disk since you last read it; read it again before overwriting it."
        )
    existing = read(path, shown)
    return CreatePlan(
        path,
        shown,
        content.replace("\r\n", "\n") if existing.newline == "\r\n" else content,
        existing,
    )


# SessionState.extras key: (path, content) of calls prepare() found to change nothing. Such a
# call runs without asking, so invoke() must not write if the file changed in between (an
# earlier call in the same round, say): it refuses instead.
_UNCHANGED = "create_file.unchanged"


def _unchanged_calls(ctx: ToolContext) -> set[tuple[str, str]]:
    calls = ctx.session.extras.setdefault(_UNCHANGED, set())
    assert isinstance(calls, set)
    return calls


class CreateFileTool(BaseTool):
    """Create a file with the given content."""

    name = "create_file"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(_plan(input, ctx), ctx)

    async def prepare_async(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(await _plan_read(input, ctx), ctx)

    @staticmethod
    def _prepared(plan: CreatePlan, ctx: ToolContext) -> Prepared:
        key = (str(plan.path), plan.content)
        if plan.unchanged:
            _unchanged_calls(ctx).add(key)
            return Prepared(
                invocation_message=f"Checking {plan.shown}",
                past_tense_message=f"{plan.shown} already has this content (no change)",
                confirmation=Confirmation(
                    title=f"No change to {plan.shown}",
                    message="The file already has this content; nothing will be written.",
                ),
                paths=(plan.path,),
                changes_nothing=True,
            )
        _unchanged_calls(ctx).discard(key)
        verb = "Overwrite" if plan.existing else "Create"
        lines = plan.content.count("\n") + (
            0 if plan.content.endswith("\n") or not plan.content else 1
        )
        return Prepared(
            invocation_message=f"{verb[:-1]}ing {plan.shown}",
            past_tense_message=f"{verb}d {plan.shown} ({plural(lines, 'line')})",
            confirmation=Confirmation(
                title=f"{verb} {plan.shown}?", message=diff_block(plan.diff())
            ),
            paths=(plan.path,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = await _plan_read(input, ctx)
        checked_unchanged = (str(plan.path), plan.content) in _unchanged_calls(ctx)
        _unchanged_calls(ctx).discard((str(plan.path), plan.content))
        if plan.unchanged:
            ctx.session.remember(plan.path)
            return ToolResult(
                f"{plan.shown} already had this content; nothing was written (no change).",
                data={"path": plan.shown, "created": False, "unchanged": True},
            )
        if checked_unchanged:
            raise ToolError(
                f"{plan.shown} changed after this call was checked (it then already had this "
                "content), so nothing was written. Read it again and decide whether to overwrite it."
            )
        await ctx.session.files.write(plan.path, plan.shown, plan.content, plan.existing)
        ctx.session.remember(plan.path)
        verb = "Overwrote" if plan.existing else "Created"
        return ToolResult(
            f"{verb} {plan.shown} ({plural(len(plan.content.encode('utf-8')), 'byte')}).",
            display=plan.diff(),
            data={"path": plan.shown, "created": plan.existing is None},
        )
