"""Fuzzy matching never rewrites the file's own lines (issue 11, item 11).

A hunk's context may match the file only after normalising whitespace or Unicode punctuation. Only
'-' lines are removed and '+' lines inserted: every other byte of the file stays as it was — the
indentation, the em-dash, the trailing spaces, the CRLF endings. Checked case by case through the
real tool, and as a property over random files and hunks through the planner and writer.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.errors import ToolError
from agent_tui.tools.apply_patch import ApplyPatchTool
from agent_tui.tools.base import ToolContext
from agent_tui.tools.patch_apply import plan_patch, write_plan
from agent_tui.tools.patch_parse import parse_patch
from agent_tui.tools.replace_string import ReplaceStringTool
from tests.helpers import builtin_tool

# What a model typically sends instead of the file's text: ASCII punctuation, no outer whitespace.
_ASCII = str.maketrans(
    {"\u2014": "-", "\u2013": "-", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "}
)


def normalised(line: str) -> str:
    return line.translate(_ASCII).strip()


def patch(*body: str) -> dict[str, Any]:
    return {"input": "\n".join(("*** Begin Patch", *body, "*** End Patch")) + "\n"}


async def apply(ctx: ToolContext, args: dict[str, Any]) -> None:
    tool = builtin_tool("apply_patch", ApplyPatchTool)
    tool.prepare(args, ctx)
    await tool.invoke(args, ctx)


@pytest.mark.parametrize(
    ("before", "context_lines", "after"),
    [
        pytest.param(
            "class A:\n    def run(self):\n        return 1\n",
            ["class A:", "def run(self):"],  # the model dropped the indentation
            "class A:\n    def run(self):\n        return 2\n",
            id="leading-indentation",
        ),
        pytest.param(
            "x = 1   \ny = 2\t\nreturn 1\n",
            ["x = 1", "y = 2"],
            "x = 1   \ny = 2\t\n        return 2\n",
            id="trailing-whitespace",
        ),
        pytest.param(
            "if x:\n\tcall()\n\treturn 1\n",
            ["if x:", "    call()"],  # spaces in the patch, a tab in the file
            "if x:\n\tcall()\n        return 2\n",
            id="tabs-vs-spaces",
        ),
        pytest.param(
            "# note \u2014 it\u2019s \u201cfine\u201d\u00a0here\nreturn 1\n",
            ['# note - it\'s "fine" here'],
            "# note \u2014 it\u2019s \u201cfine\u201d\u00a0here\n        return 2\n",
            id="unicode-dash-quotes-nbsp",
        ),
        pytest.param(
            "  a \u2013 b  \nreturn 1\n",
            ["a - b"],  # en dash, both sides padded
            "  a \u2013 b  \n        return 2\n",
            id="en-dash-and-padding",
        ),
    ],
)
async def test_context_matched_fuzzily_keeps_file_bytes(
    ctx: ToolContext, before: str, context_lines: list[str], after: str
) -> None:
    path = ctx.workspace / "f.py"
    path.write_bytes(before.encode())
    body = [f" {line}" for line in context_lines]
    await apply(ctx, patch("*** Update File: f.py", "@@", *body, "-return 1", "+        return 2"))
    assert path.read_bytes() == after.encode()


async def test_crlf_file_keeps_context_bytes_and_endings(ctx: ToolContext) -> None:
    path = ctx.workspace / "w.txt"
    path.write_bytes(b"  head \xe2\x80\x94 one  \r\n\tmid\r\nold\r\ntail\r\n")
    await apply(ctx, patch("*** Update File: w.txt", "@@", " head - one", " mid", "-old", "+new"))
    assert path.read_bytes() == b"  head \xe2\x80\x94 one  \r\n\tmid\r\nnew\r\ntail\r\n"


async def test_mixed_endings_file_keeps_its_cr_on_context(ctx: ToolContext) -> None:
    # Not consistently CRLF, so the \r stays inside the line and only the rstrip pass matches it.
    path = ctx.workspace / "m.txt"
    path.write_bytes(b"keep\r\nold\nend\n")
    await apply(ctx, patch("*** Update File: m.txt", "@@", " keep", "-old", "+new"))
    assert path.read_bytes() == b"keep\r\nnew\nend\n"


async def test_context_after_the_change_is_kept_too(ctx: ToolContext) -> None:
    path = ctx.workspace / "f.py"
    path.write_text("def f():\n    x = 1\n    return x  \n")
    await apply(ctx, patch("*** Update File: f.py", "@@", "-    x = 1", "+    x = 2", " return x"))
    assert path.read_text() == "def f():\n    x = 2\n    return x  \n"


async def test_stray_trailing_blank_context_with_fuzzy_match(ctx: ToolContext) -> None:
    # The trailing blank context line is not in the file; the indented line before it still is.
    path = ctx.workspace / "f.py"
    path.write_text("def f():\n    a = 1\n    b = 2")
    await apply(ctx, patch("*** Update File: f.py", "@@", " a = 1", "-b = 2", "+    b = 3", " "))
    assert path.read_text() == "def f():\n    a = 1\n    b = 3\n"


async def test_replace_string_has_no_tolerant_match(ctx: ToolContext) -> None:
    # replace_string_in_file matches exactly: text that differs only in whitespace or punctuation
    # is refused and the file is untouched (so it can never rewrite lines it did not match).

    tool = builtin_tool("replace_string_in_file", ReplaceStringTool)
    path = ctx.workspace / "f.py"
    path.write_bytes(b"    a = 1 \xe2\x80\x94 x\r\n    b = 2\r\n")
    for old in ("a = 1 - x", "    a = 1 \u2014 x  ", "\ta = 1 \u2014 x"):
        args = {"path": "f.py", "old_string": old, "new_string": "z"}
        with pytest.raises(ToolError, match="was not found"):
            tool.prepare(args, ctx)
    args = {"path": "f.py", "old_string": "b = 2", "new_string": "b = 3"}
    tool.prepare(args, ctx)
    await tool.invoke(args, ctx)
    assert path.read_bytes() == b"    a = 1 \xe2\x80\x94 x\r\n    b = 3\r\n"


# --- property: random file, random hunk sent with normalised context ---------------------------

_INDENTS = ["", "  ", "    ", "\t", "\t  ", " \t"]
_WORDS = ["value", "x = 1", "it\u2019s", "a \u2014 b", "\u201cq\u201d", "c\u00a0d", "e \u2013 f"]
_TRAILS = ["", " ", "   ", "\t", "\u00a0", " \u00a0"]

file_line = st.tuples(st.sampled_from(_INDENTS), st.sampled_from(_WORDS), st.sampled_from(_TRAILS))
# Per line of the hunk's window: kept as context (" ") or removed ("-"), and '+' lines to insert
# after it (0-2); per patch line, whether it is sent normalised.
hunk_line = st.tuples(st.sampled_from(" -"), st.integers(0, 2), st.booleans())


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(file_line, min_size=1, max_size=25),
    data=st.data(),
    crlf=st.booleans(),
)
def test_property_only_minus_lines_leave_and_plus_lines_arrive(
    lines: list[tuple[str, str, str]], data: st.DataObject, crlf: bool
) -> None:
    # A unique number on each line makes the hunk's place in the file unambiguous.
    text_lines = [f"{indent}{word} #{n}{trail}" for n, (indent, word, trail) in enumerate(lines)]
    start = data.draw(st.integers(0, len(text_lines) - 1))
    size = data.draw(st.integers(1, min(6, len(text_lines) - start)))
    ops = data.draw(st.lists(hunk_line, min_size=size, max_size=size))
    body, expected_window, added = [], [], 0
    for line, (marker, plus_count, fuzzy) in zip(
        text_lines[start : start + size], ops, strict=True
    ):
        body.append(marker + (normalised(line) if fuzzy else line))
        if marker == " ":
            expected_window.append(line)
        for _ in range(plus_count):
            body.append(f"+added \u2014 {added}  ")
            expected_window.append(f"added \u2014 {added}  ")
            added += 1
    expected = text_lines[:start] + expected_window + text_lines[start + size :]
    newline = "\r\n" if crlf else "\n"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.txt"
        path.write_bytes(newline.join(text_lines).encode() + newline.encode())
        ops_parsed = parse_patch(
            "\n".join(["*** Begin Patch", "*** Update File: f.txt", "@@", *body, "*** End Patch"])
        )
        write_plan(plan_patch(ops_parsed, lambda raw: (Path(folder) / raw, raw), lambda p, s: None))
        assert path.read_bytes() == (newline.join(expected) + newline).encode()
