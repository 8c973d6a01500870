"""read_file on real files: ranges, paging, totals, binary, bad input, paths outside the workspace."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import ToolContext
from agent_tui.tools.read_file import PAGE_LINES, ReadFileTool
from tests.helpers import builtin_tool, run_tool


@pytest.fixture
def tool() -> ReadFileTool:
    return builtin_tool("read_file", ReadFileTool)


def write_lines(path: Path, count: int, newline: str = "\n") -> None:
    path.write_text("".join(f"line {i}{newline}" for i in range(1, count + 1)), newline="")


async def test_whole_small_file_numbered_with_total(tool: ReadFileTool, ctx: ToolContext) -> None:
    write_lines(ctx.workspace / "a.txt", 3)
    result = await run_tool(tool, ctx, path="a.txt")
    assert result.content.splitlines() == [
        "a.txt: lines 1–3 of 3",
        "     1\tline 1",
        "     2\tline 2",
        "     3\tline 3",
    ]
    assert result.data["total_lines"] == 3 and result.data["total_exact"] is True
    assert ctx.session.changed_since_seen(ctx.workspace / "a.txt") is False


async def test_range_is_one_based_inclusive(tool: ReadFileTool, ctx: ToolContext) -> None:
    write_lines(ctx.workspace / "a.txt", 10)
    result = await run_tool(tool, ctx, path="a.txt", start_line=4, end_line=6)
    lines = result.content.splitlines()
    assert lines[0] == "a.txt: lines 4–6 of 10"
    assert lines[1:4] == ["     4\tline 4", "     5\tline 5", "     6\tline 6"]
    assert "start_line=7" in result.content


async def test_end_line_past_the_end_is_clamped(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "a.txt").write_text("x\ny")  # no trailing newline: still 2 lines
    result = await run_tool(tool, ctx, path="a.txt", start_line=2, end_line=50)
    assert result.content.splitlines() == ["a.txt: lines 2–2 of 2", "     2\ty"]
    assert "start_line=" not in result.content


async def test_start_past_end_is_an_error_with_the_length(
    tool: ReadFileTool, ctx: ToolContext
) -> None:
    write_lines(ctx.workspace / "a.txt", 5)
    with pytest.raises(ToolError, match="past the end.*5 lines"):
        await run_tool(tool, ctx, path="a.txt", start_line=6)


async def test_end_before_start_refused(tool: ReadFileTool, ctx: ToolContext) -> None:
    write_lines(ctx.workspace / "a.txt", 5)
    with pytest.raises(ToolError, match="before start_line"):
        await run_tool(tool, ctx, path="a.txt", start_line=4, end_line=2)


async def test_large_file_is_paged_and_says_how_to_continue(
    tool: ReadFileTool, ctx: ToolContext
) -> None:
    write_lines(ctx.workspace / "big.txt", 2500)
    first = await run_tool(tool, ctx, path="big.txt")
    assert first.content.splitlines()[0] == f"big.txt: lines 1–{PAGE_LINES} of 2500"
    assert f"call read_file with start_line={PAGE_LINES + 1}" in first.content.lower()
    second = await run_tool(tool, ctx, path="big.txt", start_line=PAGE_LINES + 1)
    assert f"{PAGE_LINES + 1:>6}\tline {PAGE_LINES + 1}" in second.content
    last = await run_tool(tool, ctx, path="big.txt", start_line=2001)
    assert last.content.splitlines()[0] == "big.txt: lines 2001–2500 of 2500"
    assert last.content.splitlines()[-1] == "  2500\tline 2500"
    assert "start_line=" not in last.content


async def test_explicit_range_over_page_is_paged(tool: ReadFileTool, ctx: ToolContext) -> None:
    write_lines(ctx.workspace / "big.txt", 3000)
    result = await run_tool(tool, ctx, path="big.txt", start_line=1, end_line=3000)
    assert result.data["end_line"] == PAGE_LINES
    assert f"start_line={PAGE_LINES + 1}" in result.content


async def test_character_budget_pages_long_lines(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "wide.txt").write_text(("y" * 1500 + "\n") * 100)
    result = await run_tool(tool, ctx, path="wide.txt")
    shown = result.data["end_line"]
    assert 10 < shown < 100
    assert len(result.content) < 45_000
    assert f"start_line={shown + 1}" in result.content


async def test_huge_file_honest_about_unknown_total(tool: ReadFileTool, ctx: ToolContext) -> None:
    # Bigger than the exact-count limit: the total is reported as a lower bound, not made up.
    path = ctx.workspace / "huge.log"
    row = b"a log line that is reasonably long, like real logs are\n"
    path.write_bytes(row * (20 * 1024 * 1024 // len(row)))
    result = await run_tool(tool, ctx, path="huge.log")
    shown = result.data["end_line"]
    assert f"of at least {shown + 1} (roughly" in result.content.splitlines()[0]
    assert result.data["total_exact"] is False
    assert f"start_line={shown + 1}" in result.content


async def test_very_long_line_is_cut_without_loading_it(
    tool: ReadFileTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "min.js").write_text("a" * 3_000_000 + "\nsecond\n")
    result = await run_tool(tool, ctx, path="min.js")
    first, second = result.content.splitlines()[1:3]
    assert first.startswith("     1\t" + "a" * 100) and "line cut" in first and len(first) < 2100
    assert second == "     2\tsecond"
    assert result.data["total_lines"] == 2


async def test_crlf_and_bom_do_not_leak_into_output(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    result = await run_tool(tool, ctx, path="w.txt")
    assert result.content.splitlines()[1:] == ["     1\tone", "     2\ttwo"]
    assert "\r" not in result.content


async def test_invalid_utf8_is_replaced_not_fatal(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "latin.txt").write_bytes(b"caf\xe9\nok\n")
    result = await run_tool(tool, ctx, path="latin.txt")
    assert "caf\ufffd" in result.content and "     2\tok" in result.content


async def test_empty_file(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "e.txt").write_text("")
    result = await run_tool(tool, ctx, path="e.txt")
    assert "empty" in result.content and result.data["total_lines"] == 0


async def test_binary_refused_with_size_and_type(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "doc.pdf").write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    with pytest.raises(ToolError, match=r"binary file \(PDF document, 2\.0 KB\)"):
        await run_tool(tool, ctx, path="doc.pdf")
    (ctx.workspace / "blob.bin").write_bytes(b"abc\x00def")
    with pytest.raises(ToolError, match="binary"):
        await run_tool(tool, ctx, path="blob.bin")


async def test_missing_file_suggests_close_names(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "config.py").write_text("x = 1\n")
    with pytest.raises(ToolError, match="does not exist.*config.py"):
        await run_tool(tool, ctx, path="confg.py")
    with pytest.raises(ToolError, match="file_search"):
        await run_tool(tool, ctx, path="nothing/here.txt")


async def test_directory_refused_pointing_to_list_dir(tool: ReadFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "src").mkdir()
    with pytest.raises(ToolError, match="list_dir"):
        await run_tool(tool, ctx, path="src")


@pytest.mark.parametrize(
    "args",
    [
        {},
        {"path": 3},
        {"path": ""},
        {"path": "a.txt", "start_line": "abc"},
        {"path": "a.txt", "start_line": 0},
        {"path": "a.txt", "start_line": True},
        {"path": "a.txt", "end_line": [1]},
        ["a.txt"],
    ],
)
async def test_bad_arguments_raise_tool_error(
    tool: ReadFileTool, ctx: ToolContext, args: Any
) -> None:
    write_lines(ctx.workspace / "a.txt", 3)
    with pytest.raises(ToolError):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError):
        await tool.invoke(args, ctx)


async def test_numeric_strings_accepted(tool: ReadFileTool, ctx: ToolContext) -> None:
    write_lines(ctx.workspace / "a.txt", 5)
    result = await run_tool(tool, ctx, path="a.txt", start_line="2", end_line=3.0)
    assert result.content.splitlines()[0] == "a.txt: lines 2–3 of 5"


async def test_paths_outside_workspace_refused(
    tool: ReadFileTool, ctx: ToolContext, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (ctx.workspace / "link.txt").symlink_to(secret)
    for path in ("../secret.txt", str(secret), "link.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            tool.prepare({"path": path}, ctx)
        with pytest.raises(ToolError, match="outside the workspace"):
            await tool.invoke({"path": path}, ctx)


async def test_absolute_path_inside_and_symlink_inside_work(
    tool: ReadFileTool, ctx: ToolContext
) -> None:
    write_lines(ctx.workspace / "a.txt", 2)
    (ctx.workspace / "alias.txt").symlink_to(ctx.workspace / "a.txt")
    result = await run_tool(tool, ctx, path=str(ctx.workspace / "alias.txt"))
    assert result.content.startswith("a.txt: lines 1–2 of 2")


async def test_permission_denied(tool: ReadFileTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "locked.txt"
    path.write_text("hidden\n")
    path.chmod(0)
    try:
        if os.geteuid() == 0:
            # root reads through mode 000; the honest check is that it still reads correctly.
            result = await run_tool(tool, ctx, path="locked.txt")
            assert "hidden" in result.content
        else:
            with pytest.raises(ToolError, match="Permission denied"):
                await run_tool(tool, ctx, path="locked.txt")
    finally:
        path.chmod(0o644)


async def test_fifo_is_refused_not_hung(tool: ReadFileTool, ctx: ToolContext) -> None:
    os.mkfifo(ctx.workspace / "pipe")
    with pytest.raises(ToolError, match="not a regular file"):
        await run_tool(tool, ctx, path="pipe")


def test_prepare_messages(tool: ReadFileTool, ctx: ToolContext) -> None:
    prepared = tool.prepare({"path": "src/app.py", "start_line": 1, "end_line": 120}, ctx)
    assert prepared.invocation_message == "Reading src/app.py, lines 1–120"
    assert prepared.past_tense_message == "Read src/app.py, lines 1–120"
    assert prepared.confirmation is None
    assert prepared.paths == ((ctx.workspace / "src/app.py").resolve(),)
    assert tool.prepare({"path": "src/app.py"}, ctx).invocation_message == "Reading src/app.py"


async def test_far_start_line_crosses_read_chunks(tool: ReadFileTool, ctx: ToolContext) -> None:
    # ~3.5 MB: skipping to line 150000 scans several 1 MiB chunks and must land exactly.
    write_lines(ctx.workspace / "long.txt", 300_000)
    result = await run_tool(tool, ctx, path="long.txt", start_line=150_000, end_line=150_001)
    assert result.content.splitlines() == [
        "long.txt: lines 150000–150001 of 300000",
        "150000\tline 150000",
        "150001\tline 150001",
        "[More lines follow. Call read_file with start_line=150002 to read the next part.]",
    ]


async def test_image_file_returns_an_image(tool: ReadFileTool, ctx: ToolContext) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8
    (ctx.workspace / "logo.png").write_bytes(png)
    result = await run_tool(tool, ctx, path="logo.png")
    assert "logo.png is an image (PNG, 2.0 KB)" in result.content
    assert [(i.media_type, base64.b64decode(i.data)) for i in result.images] == [("image/png", png)]
    (ctx.workspace / "huge.webp").write_bytes(b"RIFF\0\0\0\0WEBP" + b"\0" * (5 * 1024 * 1024))
    with pytest.raises(ToolError, match="limited to 5 MB"):
        await run_tool(tool, ctx, path="huge.webp")
