"""create_file on real files: parents, the read-before-overwrite rule, endings, bad input."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import ToolContext
from agent_tui.tools.create_file import CreateFileTool
from tests.helpers import builtin_tool, run_tool


@pytest.fixture
def tool() -> CreateFileTool:
    return builtin_tool("create_file", CreateFileTool)


async def test_creates_file_and_parents(tool: CreateFileTool, ctx: ToolContext) -> None:
    result = await run_tool(tool, ctx, path="pkg/sub/mod.py", content="x = 1\n")
    path = ctx.workspace / "pkg" / "sub" / "mod.py"
    assert path.read_text() == "x = 1\n"
    assert result.content == "Created pkg/sub/mod.py (6 bytes)."
    assert ctx.session.changed_since_seen(path) is False
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # a normal file, not mkstemp's 0600
    assert [p.name for p in path.parent.iterdir()] == ["mod.py"]  # no temp file left


async def test_empty_content_allowed(tool: CreateFileTool, ctx: ToolContext) -> None:
    await run_tool(tool, ctx, path="__init__.py", content="")
    assert (ctx.workspace / "__init__.py").read_bytes() == b""


async def test_confirmation_is_a_diff(tool: CreateFileTool, ctx: ToolContext) -> None:
    prepared = tool.prepare({"path": "a.txt", "content": "one\ntwo\n"}, ctx)
    assert prepared.invocation_message == "Creating a.txt"
    assert prepared.past_tense_message == "Created a.txt (2 lines)"
    assert prepared.confirmation is not None
    assert (
        prepared.confirmation.message
        == "```diff\n--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n```"
    )
    assert not (ctx.workspace / "a.txt").exists()  # prepare never writes


async def test_refuses_to_overwrite_unread_file(tool: CreateFileTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "keep.txt"
    path.write_text("precious\n")
    with pytest.raises(ToolError, match="not read it in this session.*read_file"):
        tool.prepare({"path": "keep.txt", "content": "new\n"}, ctx)
    with pytest.raises(ToolError, match="not read it"):
        await tool.invoke({"path": "keep.txt", "content": "new\n"}, ctx)
    assert path.read_text() == "precious\n"


async def test_overwrites_after_read_keeping_crlf_and_mode(
    tool: CreateFileTool, ctx: ToolContext
) -> None:
    path = ctx.workspace / "run.bat"
    path.write_bytes(b"echo old\r\n")
    path.chmod(0o755)
    ctx.session.remember(path)  # what read_file does
    result = await run_tool(tool, ctx, path="run.bat", content="echo new\nexit\n")
    assert path.read_bytes() == b"echo new\r\nexit\r\n"
    assert path.stat().st_mode & 0o777 == 0o755
    assert result.content.startswith("Overwrote run.bat")


async def test_refuses_when_changed_since_read(tool: CreateFileTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "f.txt"
    path.write_text("v1\n")
    ctx.session.remember(path)
    path.write_text("v2 from the user\n")
    with pytest.raises(ToolError, match="changed on disk"):
        await tool.invoke({"path": "f.txt", "content": "agent\n"}, ctx)
    assert path.read_text() == "v2 from the user\n"


async def test_directory_and_file_in_the_way(tool: CreateFileTool, ctx: ToolContext) -> None:
    (ctx.workspace / "dir").mkdir()
    (ctx.workspace / "plain").write_text("x")
    with pytest.raises(ToolError, match="is a folder"):
        await run_tool(tool, ctx, path="dir", content="x")
    with pytest.raises(ToolError, match="plain is a file, not a folder"):
        await run_tool(tool, ctx, path="plain/child.txt", content="x")
    assert (ctx.workspace / "plain").read_text() == "x"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "Missing required argument `path`"),
        ({"path": "a.txt"}, "Missing required argument `content`"),
        ({"path": "a.txt", "content": 12}, "`content` must be a string"),
        ({"path": None, "content": "x"}, "Missing required argument `path`"),
        ({"path": "", "content": "x"}, "empty"),
        ("a.txt", "JSON object"),
    ],
)
async def test_bad_input(tool: CreateFileTool, ctx: ToolContext, args: Any, error: str) -> None:
    with pytest.raises(ToolError, match=error):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(args, ctx)
    assert list(ctx.workspace.iterdir()) == []


async def test_outside_workspace_refused(
    tool: CreateFileTool, ctx: ToolContext, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ctx.workspace / "out").symlink_to(outside)
    for path in ("../evil.txt", str(tmp_path / "evil.txt"), "out/evil.txt"):
        with pytest.raises(ToolError, match="outside the workspace"):
            await run_tool(tool, ctx, path=path, content="x")
    assert not (tmp_path / "evil.txt").exists() and list(outside.iterdir()) == []


async def test_unwritable_folder(tool: CreateFileTool, ctx: ToolContext) -> None:
    locked = ctx.workspace / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.geteuid() == 0:
            # root writes through 0500; the honest check is that the write is then complete.
            await run_tool(tool, ctx, path="locked/f.txt", content="ok\n")
            assert (locked / "f.txt").read_text() == "ok\n"
        else:
            with pytest.raises(ToolError, match="Permission denied"):
                await run_tool(tool, ctx, path="locked/f.txt", content="ok\n")
            assert list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize(
    ("on_disk", "content"),
    [
        (b"x = 1\n", "x = 1\n"),
        (b"a\r\nb\r\n", "a\nb\n"),  # a CRLF file: writing would put the same bytes back
        (b"a\r\nb\r\n", "a\r\nb\r\n"),
        (b"\xef\xbb\xbfbom\n", "bom\n"),  # the BOM is kept on write, so this is no change either
        (b"", ""),
    ],
)
async def test_identical_overwrite_changes_nothing_and_writes_nothing(
    tool: CreateFileTool, ctx: ToolContext, on_disk: bytes, content: str
) -> None:
    path = ctx.workspace / "same.txt"
    path.write_bytes(on_disk)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    ctx.session.remember(path)
    inode = path.stat().st_ino
    prepared = tool.prepare({"path": "same.txt", "content": content}, ctx)
    assert prepared.changes_nothing
    assert prepared.past_tense_message == "same.txt already has this content (no change)"
    result = await tool.invoke({"path": "same.txt", "content": content}, ctx)
    assert result.content == "same.txt already had this content; nothing was written (no change)."
    assert not result.is_error
    st = path.stat()
    assert (path.read_bytes(), st.st_mtime_ns, st.st_ino) == (on_disk, 1_000_000_000, inode)


@pytest.mark.parametrize(
    ("on_disk", "content"),
    [(b"x = 1\n", "x = 1"), (b"x = 1\n", "x = 1 \n"), (b"a\nb\n", "a\r\nb\r\n")],
)
async def test_near_identical_overwrite_still_asks(
    tool: CreateFileTool, ctx: ToolContext, on_disk: bytes, content: str
) -> None:
    path = ctx.workspace / "near.txt"
    path.write_bytes(on_disk)
    ctx.session.remember(path)
    prepared = tool.prepare({"path": "near.txt", "content": content}, ctx)
    assert not prepared.changes_nothing
    assert (
        prepared.confirmation is not None and prepared.confirmation.title == "Overwrite near.txt?"
    )


async def test_no_change_call_never_writes_after_an_earlier_call_changed_the_file(
    tool: CreateFileTool, ctx: ToolContext
) -> None:
    # One round: call 1 (approved) writes new text, call 2 was checked as "no change" before call
    # 1 ran, so it ran without asking: it must not write the old text back.
    path = ctx.workspace / "f.txt"
    path.write_text("old\n")
    ctx.session.remember(path)
    first, second = {"path": "f.txt", "content": "new\n"}, {"path": "f.txt", "content": "old\n"}
    assert not tool.prepare(first, ctx).changes_nothing
    assert tool.prepare(second, ctx).changes_nothing
    await tool.invoke(first, ctx)
    with pytest.raises(ToolError, match="changed after this call was checked"):
        await tool.invoke(second, ctx)
    assert path.read_text() == "new\n"
