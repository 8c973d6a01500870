"""replace_string_in_file on real files: exact match, ambiguity, closest lines, endings, encoding,
mode, the stale-file guard, bad input and paths outside the workspace."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import ToolContext
from agent_tui.tools.fs_util import unified_diff
from agent_tui.tools.replace_string import ReplaceStringTool, _find_all, _replace
from tests.helpers import builtin_tool, run_tool


@pytest.fixture
def tool() -> ReplaceStringTool:
    return builtin_tool("replace_string_in_file", ReplaceStringTool)


SOURCE = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"


async def test_replaces_once_and_reports_line(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "calc.py"
    path.write_text(SOURCE)
    result = await run_tool(
        tool,
        ctx,
        path="calc.py",
        old_string="    return a - b",
        new_string="    return a - b  # minus",
    )
    assert path.read_text() == SOURCE.replace("a - b\n", "a - b  # minus\n")
    assert result.content == "Edited calc.py: replaced line 6."
    assert ctx.session.changed_since_seen(path) is False


async def test_confirmation_diff(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    (ctx.workspace / "calc.py").write_text(SOURCE)
    prepared = tool.prepare({"path": "calc.py", "old_string": "a + b", "new_string": "b + a"}, ctx)
    assert prepared.confirmation is not None
    assert prepared.confirmation.message == (
        "```diff\n--- a/calc.py\n+++ b/calc.py\n@@ -1,5 +1,5 @@\n def add(a, b):\n"
        "-    return a + b\n+    return b + a\n \n \n def sub(a, b):\n```"
    )
    assert (prepared.invocation_message, prepared.past_tense_message) == (
        "Editing calc.py",
        "Edited calc.py",
    )
    assert (ctx.workspace / "calc.py").read_text() == SOURCE  # prepare never writes


async def test_several_matches_need_replace_all(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "calc.py"
    path.write_text(SOURCE)
    with pytest.raises(
        ToolError, match=r"occurs 2 times in calc.py \(at lines 1, 5\).*replace_all"
    ):
        await run_tool(tool, ctx, path="calc.py", old_string="(a, b)", new_string="(x, y)")
    assert path.read_text() == SOURCE
    result = await run_tool(
        tool, ctx, path="calc.py", old_string="(a, b)", new_string="(x, y)", replace_all=True
    )
    assert path.read_text() == SOURCE.replace("(a, b)", "(x, y)")
    assert "2 places" in result.content


async def test_not_found_shows_closest_lines(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "calc.py"
    path.write_text(SOURCE)
    with pytest.raises(ToolError) as error:
        await run_tool(tool, ctx, path="calc.py", old_string="    return a * b", new_string="x")
    message = str(error.value)
    assert "not found in calc.py" in message
    assert "6:     return a - b" in message  # the closest line, numbered
    assert "\n7: " not in message  # nothing past the end of the file
    assert path.read_text() == SOURCE


async def test_not_found_hints_whitespace_and_line_numbers(
    tool: ReplaceStringTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "calc.py").write_text(SOURCE)
    with pytest.raises(ToolError, match="different whitespace"):
        await run_tool(
            tool, ctx, path="calc.py", old_string="def add(a, b):\n  return a + b", new_string="x"
        )
    with pytest.raises(ToolError, match="line-number prefixes"):
        await run_tool(
            tool, ctx, path="calc.py", old_string="     2\t    return a + b", new_string="x"
        )


async def test_crlf_file_stays_crlf(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "win.txt"
    path.write_bytes(b"first\r\nsecond\r\nthird\r\n")
    await run_tool(
        tool, ctx, path="win.txt", old_string="first\nsecond", new_string="one\ntwo\nmore"
    )
    assert path.read_bytes() == b"one\r\ntwo\r\nmore\r\nthird\r\n"
    # The model may also send CRLF itself.
    await run_tool(tool, ctx, path="win.txt", old_string="two\r\nmore", new_string="2")
    assert path.read_bytes() == b"one\r\n2\r\nthird\r\n"


async def test_mixed_endings_untouched_outside_the_edit(
    tool: ReplaceStringTool, ctx: ToolContext
) -> None:
    path = ctx.workspace / "mixed.txt"
    path.write_bytes(b"a\r\nb\nc\r\n")
    await run_tool(tool, ctx, path="mixed.txt", old_string="b", new_string="B")
    assert path.read_bytes() == b"a\r\nB\nc\r\n"


async def test_encoding_bom_and_stray_bytes_kept(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    bom = ctx.workspace / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbfname = 'caf\xc3\xa9'\n")
    await run_tool(tool, ctx, path="bom.txt", old_string="name", new_string="title")
    assert bom.read_bytes() == b"\xef\xbb\xbftitle = 'caf\xc3\xa9'\n"
    latin = ctx.workspace / "latin.txt"
    latin.write_bytes(b"caf\xe9 = 1\nother = 2\n")  # not UTF-8: the \xe9 byte must survive
    await run_tool(tool, ctx, path="latin.txt", old_string="other = 2", new_string="other = 3")
    assert latin.read_bytes() == b"caf\xe9 = 1\nother = 3\n"


async def test_mode_kept(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "run.sh"
    path.write_text("#!/bin/sh\necho hi\n")
    path.chmod(0o750)
    await run_tool(tool, ctx, path="run.sh", old_string="hi", new_string="bye")
    assert path.stat().st_mode & 0o777 == 0o750
    assert [p.name for p in ctx.workspace.iterdir()] == ["run.sh"]  # no temp file left


async def test_refuses_when_changed_since_read(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "f.txt"
    path.write_text("one\n")
    ctx.session.remember(path)
    path.write_text("one\nplus the user's edit\n")
    with pytest.raises(ToolError, match="changed on disk since you last read it"):
        await run_tool(tool, ctx, path="f.txt", old_string="one", new_string="1")
    assert path.read_text() == "one\nplus the user's edit\n"


async def test_file_problems(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    (ctx.workspace / "dir").mkdir()
    (ctx.workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(ToolError, match="create_file"):
        await run_tool(tool, ctx, path="missing.py", old_string="a", new_string="b")
    with pytest.raises(ToolError, match="is a directory"):
        await run_tool(tool, ctx, path="dir", old_string="a", new_string="b")
    with pytest.raises(ToolError, match=r"binary file \(PNG image"):
        await run_tool(tool, ctx, path="img.png", old_string="PNG", new_string="JPG")
    big = ctx.workspace / "big.txt"
    with big.open("wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse, beyond the edit limit
    with pytest.raises(ToolError, match="cannot be edited with this tool"):
        await run_tool(tool, ctx, path="big.txt", old_string="a", new_string="b")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "Missing required argument `path`"),
        ({"path": "f.txt", "new_string": "x"}, "Missing required argument `old_string`"),
        ({"path": "f.txt", "old_string": "x"}, "Missing required argument `new_string`"),
        ({"path": "f.txt", "old_string": 1, "new_string": "x"}, "must be a string"),
        ({"path": "f.txt", "old_string": "", "new_string": "x"}, "`old_string` is empty"),
        ({"path": "f.txt", "old_string": "same", "new_string": "same"}, "nothing to change"),
        (
            {"path": "f.txt", "old_string": "a", "new_string": "b", "replace_all": 2},
            "true or false",
        ),
        (None, "JSON object"),
    ],
)
async def test_bad_input(tool: ReplaceStringTool, ctx: ToolContext, args: Any, error: str) -> None:
    (ctx.workspace / "f.txt").write_text("same a\n")
    with pytest.raises(ToolError, match=error):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(args, ctx)
    assert (ctx.workspace / "f.txt").read_text() == "same a\n"


async def test_outside_workspace_refused(
    tool: ReplaceStringTool, ctx: ToolContext, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("password = 1\n")
    (ctx.workspace / "link.txt").symlink_to(secret)
    for path in ("../secret.txt", str(secret), "link.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            await run_tool(tool, ctx, path=path, old_string="1", new_string="2")
    assert secret.read_text() == "password = 1\n"


async def test_permission_denied_or_root(tool: ReplaceStringTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "ro.txt"
    path.write_text("x = 1\n")
    path.chmod(0)
    try:
        if os.geteuid() == 0:
            # root reads and replaces through mode 000; the mode itself must be kept.
            await run_tool(tool, ctx, path="ro.txt", old_string="1", new_string="2")
            assert path.stat().st_mode & 0o777 == 0
            path.chmod(0o644)
            assert path.read_text() == "x = 2\n"
        else:
            with pytest.raises(ToolError, match="Permission denied"):
                await run_tool(tool, ctx, path="ro.txt", old_string="1", new_string="2")
    finally:
        path.chmod(0o644)


def as_lines(text: str) -> list[str]:
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def test_edit_positions_reproduce_the_new_text() -> None:
    # The confirmation diff is built from these edit positions (fast on big files), so applying
    # them line by line must give exactly the new text.
    rng = random.Random(7)
    pieces = ["a", "b", "\n", "ab", "x\n"]
    checked = 0
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 30)))
        old = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 3)))
        new = "".join(rng.choice(["Z", "\n", "Q\n", ""]) for _ in range(rng.randint(0, 3)))
        offsets = _find_all(text, old)
        if not offsets or old == new:
            continue
        new_text, edits = _replace(text, old, new, offsets)
        assert new_text == text.replace(old, new)
        lines = as_lines(text)
        for start, count, replacement in reversed(edits):
            lines[start : start + count] = replacement
        assert lines == as_lines(new_text), (text, old, new)
        checked += 1
    assert checked > 500
    assert unified_diff("a\n", "b\n", "f") == "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
