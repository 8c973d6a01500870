"""replace_string_in_file: replace an exact piece of text in a file, keeping its encoding,
line endings and mode, refusing stale or ambiguous edits."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.tools.base import BaseTool, Confirmation, Prepared, ToolContext, ToolResult
from agent_tui.tools.file_access import Reader, preload
from agent_tui.tools.fs_args import optional_bool, require_str
from agent_tui.tools.fs_util import (
    Edit,
    TextFile,
    diff_block,
    edits_diff,
    read_text_for_edit,
)

_NUMBERED = re.compile(r"^\s*\d+\t", re.MULTILINE)  # read_file's "    12\t" prefixes


@dataclass(frozen=True)
class ReplacePlan:
    """A checked replace_string call: the file, the edits and the text they give."""

    path: Path
    shown: str
    original: TextFile
    new_text: str
    edits: list[Edit]
    count: int

    def diff(self) -> str:
        return edits_diff(self.original.text, self.edits, self.shown, self.shown)


async def _plan_read(input: Any, ctx: ToolContext) -> ReplacePlan:
    """The plan, from the file's text as ``ctx.session.files`` has it (the editor's buffer)."""
    path = ctx.resolve(require_str(input, "path"))
    return _plan(input, ctx, await preload(ctx.session.files, [(path, ctx.relative(path))]))


def _plan(input: Any, ctx: ToolContext, read: Reader = read_text_for_edit) -> ReplacePlan:
    path = ctx.resolve(require_str(input, "path"))
    old = require_str(input, "old_string", allow_empty=True).replace("\r\n", "\n")
    new = require_str(input, "new_string", allow_empty=True).replace("\r\n", "\n")
    replace_all = optional_bool(input, "replace_all")
    shown = ctx.relative(path)
    if not old:
        raise ToolError(
            "`old_string` is empty. Give the exact text to replace (with a few lines around it), "
            "or use create_file for a new file."
        )
    if old == new:
        raise ToolError("`old_string` and `new_string` are the same; there is nothing to change.")
    if not path.exists() and not path.is_symlink():
        raise ToolError(f"{shown} does not exist; use create_file to create it.")
    original = read(path, shown)
    if ctx.session.changed_since_seen(path):
        raise ToolError(
            f"{shown} changed on disk since you last read it; read it again (read_file) and retry "
            "with its current text."
        )
    text = original.text
    offsets = _find_all(text, old)
    if not offsets:
        raise ToolError(_not_found(text, old, shown))
    if len(offsets) > 1 and not replace_all:
        lines = ", ".join(str(text.count("\n", 0, at) + 1) for at in offsets[:10])
        raise ToolError(
            f"`old_string` occurs {len(offsets)} times in {shown} (at lines {lines}). Include more "
            "surrounding lines to pick one, or set replace_all=true to replace every one."
        )
    if not replace_all:
        offsets = offsets[:1]
    new_text, edits = _replace(text, old, new, offsets)
    return ReplacePlan(path, shown, original, new_text, edits, len(offsets))


def _find_all(text: str, old: str) -> list[int]:
    offsets, at = [], text.find(old)
    while at != -1:
        offsets.append(at)
        at = text.find(old, at + len(old))
    return offsets


def _replace(text: str, old: str, new: str, offsets: list[int]) -> tuple[str, list[Edit]]:
    """Replace ``old`` at ``offsets``; also return the line edits (for a cheap, exact diff).

    Each edit spans the whole lines from the line of a match's start to the line holding the
    character just after it (so a match ending in a newline includes the line it joins).
    """
    pieces: list[str] = []
    edits: list[Edit] = []
    done = 0  # text[:done] is already in pieces
    lines_before_done = 0  # newlines in text[:done]
    index = 0
    while index < len(offsets):
        seg_start = text.rfind("\n", 0, offsets[index]) + 1
        seg_end = _line_end(text, offsets[index] + len(old))
        last = index
        while last + 1 < len(offsets) and offsets[last + 1] <= seg_end:
            last += 1
            seg_end = _line_end(text, offsets[last] + len(old))
        segment, cursor = [], seg_start
        for at in offsets[index : last + 1]:
            segment += [text[cursor:at], new]
            cursor = at + len(old)
        segment.append(text[cursor:seg_end])
        replaced = "".join(segment)
        first_line = lines_before_done + text.count("\n", done, seg_start)
        old_count = text.count("\n", seg_start, seg_end) + 1
        new_lines = replaced.split("\n")
        if seg_end == len(text):
            # At the end of the file an empty last piece is not a line (it is what follows the
            # final newline, or nothing at all), on either side.
            if new_lines[-1] == "":
                new_lines.pop()
            if text[seg_start:seg_end].split("\n")[-1] == "":
                old_count -= 1
        edits.append((first_line, old_count, new_lines))
        pieces += [text[done:seg_start], replaced]
        lines_before_done = first_line + text.count("\n", seg_start, seg_end)
        done = seg_end
        index = last + 1
    pieces.append(text[done:])
    return "".join(pieces), edits


def _line_end(text: str, at: int) -> int:
    """Offset of the newline ending the line that holds position ``at`` (or the text's end)."""
    end = text.find("\n", at)
    return len(text) if end == -1 else end


def _not_found(text: str, old: str, shown: str) -> str:
    message = f"`old_string` was not found in {shown}."
    if _NUMBERED.search(old) and all(_NUMBERED.match(line) for line in old.splitlines() if line):
        message += (
            " It contains read_file's line-number prefixes; copy only the text after the tab."
        )
    squeeze = " ".join(old.split())
    if squeeze and squeeze in " ".join(text.split()):
        message += (
            " The text is there but with different whitespace or indentation; copy it exactly."
        )
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # what follows the final newline is not a line
    probe = next((line for line in old.split("\n") if line.strip()), old)
    close = difflib.get_close_matches(
        probe.strip(), [line.strip() for line in lines], n=1, cutoff=0.6
    )
    if close:
        at = [line.strip() for line in lines].index(close[0])
        count = max(old.count("\n") + 1, 1)
        window = lines[at : at + count + 1]
        numbered = "\n".join(f"{at + i + 1}: {line}" for i, line in enumerate(window))
        message += f"\nThe closest lines in the file are:\n{numbered}"
    return message + "\nRead the file again if unsure, then retry with its exact text."


class ReplaceStringTool(BaseTool):
    """Replace an exact string in a file."""

    name = "replace_string_in_file"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(_plan(input, ctx))

    async def prepare_async(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return self._prepared(await _plan_read(input, ctx))

    @staticmethod
    def _prepared(plan: ReplacePlan) -> Prepared:
        return Prepared(
            invocation_message=f"Editing {plan.shown}",
            past_tense_message=f"Edited {plan.shown}",
            confirmation=Confirmation(title=f"Edit {plan.shown}?", message=diff_block(plan.diff())),
            paths=(plan.path,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        plan = await _plan_read(input, ctx)
        await ctx.session.files.write(plan.path, plan.shown, plan.new_text, plan.original)
        ctx.session.remember(plan.path)
        first = plan.edits[0][0] + 1
        where = (
            f"line {first}" if plan.count == 1 else f"{plan.count} places, first at line {first}"
        )
        return ToolResult(
            f"Edited {plan.shown}: replaced {where}.",
            display=plan.diff(),
            data={"path": plan.shown, "replacements": plan.count},
        )
