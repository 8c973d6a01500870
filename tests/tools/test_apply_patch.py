"""apply_patch beyond the Codex scenarios: fuzzy matching, anchors, line endings, modes,
all-or-nothing across files, the stale-file guard, and paths outside the workspace."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.apply_patch import ApplyPatchTool
from agent_tui.tools.base import ToolContext, ToolResult
from agent_tui.tools.fs_util import edits_diff, unified_diff
from agent_tui.tools.patch_parse import parse_patch
from tests.helpers import builtin_tool


@pytest.fixture
def tool() -> ApplyPatchTool:
    return builtin_tool("apply_patch", ApplyPatchTool)


def patch(*body: str) -> dict[str, Any]:
    return {"input": "\n".join(("*** Begin Patch", *body, "*** End Patch")) + "\n"}


async def run(tool: ApplyPatchTool, ctx: ToolContext, args: dict[str, Any]) -> ToolResult:
    tool.prepare(args, ctx)
    return await tool.invoke(args, ctx)


CODE = "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n"


async def test_anchor_picks_the_right_duplicate(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "m.py").write_text(CODE)
    args = patch(
        "*** Update File: m.py",
        "@@ class B:",
        "     def run(self):",
        "-        return 1",
        "+        return 2",
    )
    await run(tool, ctx, args)
    assert (ctx.workspace / "m.py").read_text() == CODE.replace(
        "class B:\n    def run(self):\n        return 1",
        "class B:\n    def run(self):\n        return 2",
    )


async def test_stacked_anchors(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "m.py").write_text(CODE)
    args = patch(
        "*** Update File: m.py",
        "@@ class B:",
        "@@     def run(self):",
        "-        return 1",
        "+        return 3",
    )
    await run(tool, ctx, args)
    assert (
        (ctx.workspace / "m.py")
        .read_text()
        .endswith("class B:\n    def run(self):\n        return 3\n")
    )


async def test_pure_addition_goes_after_its_anchor(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "m.py").write_text("import os\n\ndef f():\n    pass\n")
    args = patch("*** Update File: m.py", "@@ import os", "+import sys")
    await run(tool, ctx, args)
    assert (ctx.workspace / "m.py").read_text() == "import os\nimport sys\n\ndef f():\n    pass\n"


@pytest.mark.parametrize(
    ("file_line", "patch_line"),
    [
        ("    x = 1   ", "    x = 1"),  # trailing whitespace differs
        ("\tx = 1", "    x = 1"),  # surrounding whitespace differs
        ("msg = 'it\u2019s \u2014 ok'", "msg = 'it's - ok'"),  # typographic quote and dash
        ("msg = 'it's - ok'", "msg = 'it\u2019s \u2013 ok'"),  # the other way round
    ],
)
async def test_fuzzy_context_passes(
    tool: ApplyPatchTool, ctx: ToolContext, file_line: str, patch_line: str
) -> None:
    (ctx.workspace / "f.py").write_text(f"a = 0\n{file_line}\nb = 2\n")
    await run(
        tool,
        ctx,
        patch("*** Update File: f.py", "@@", " a = 0", f"-{patch_line}", "+y = 9", " b = 2"),
    )
    assert (ctx.workspace / "f.py").read_text() == "a = 0\ny = 9\nb = 2\n"


async def test_exact_match_wins_over_fuzzy_earlier_line(
    tool: ApplyPatchTool, ctx: ToolContext
) -> None:
    # Line 1 matches only when trailing spaces are ignored, line 2 matches exactly: exact wins.
    (ctx.workspace / "f.txt").write_text("value  \nvalue\n")
    await run(tool, ctx, patch("*** Update File: f.txt", "@@", "-value", "+changed"))
    assert (ctx.workspace / "f.txt").read_text() == "value  \nchanged\n"


async def test_crlf_bom_and_mode_are_kept(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "run.sh"
    path.write_bytes(b"\xef\xbb\xbf#!/bin/sh\r\necho one\r\necho two\r\n")
    path.chmod(0o751)
    await run(
        tool, ctx, patch("*** Update File: run.sh", "@@", " #!/bin/sh", "-echo one", "+echo uno")
    )
    assert path.read_bytes() == b"\xef\xbb\xbf#!/bin/sh\r\necho uno\r\necho two\r\n"
    assert path.stat().st_mode & 0o777 == 0o751


async def test_move_keeps_mode_and_removes_source(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    src = ctx.workspace / "a.sh"
    src.write_text("echo a\n")
    src.chmod(0o700)
    result = await run(
        tool,
        ctx,
        patch("*** Update File: a.sh", "*** Move to: bin/b.sh", "@@", "-echo a", "+echo b"),
    )
    assert not src.exists()
    dest = ctx.workspace / "bin" / "b.sh"
    assert dest.read_text() == "echo b\n" and dest.stat().st_mode & 0o777 == 0o700
    assert "A bin/b.sh (moved from a.sh)" in result.content


async def test_all_or_nothing_across_files(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "one.txt").write_text("alpha\n")
    (ctx.workspace / "two.txt").write_text("beta\n")
    (ctx.workspace / "gone.txt").write_text("keep me\n")
    args = patch(
        "*** Update File: one.txt", "@@", "-alpha", "+ALPHA",
        "*** Delete File: gone.txt",
        "*** Add File: new/dir/three.txt", "+three",
        "*** Update File: two.txt", "@@", "-beta", "+BETA",
        "@@", "-not there", "+x",
    )  # fmt: skip
    with pytest.raises(ToolError) as error:
        await tool.invoke(args, ctx)
    message = str(error.value)
    assert (
        "nothing was changed" in message and "two.txt, hunk 2" in message and "not there" in message
    )
    assert (ctx.workspace / "one.txt").read_text() == "alpha\n"
    assert (ctx.workspace / "gone.txt").read_text() == "keep me\n"
    assert not (ctx.workspace / "new").exists()
    assert sorted(p.name for p in ctx.workspace.iterdir()) == ["gone.txt", "one.txt", "two.txt"]


async def test_refuses_file_changed_since_read(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    path = ctx.workspace / "f.txt"
    path.write_text("one\n")
    ctx.session.remember(path)
    path.write_text("one\ntwo, written by someone else\n")
    with pytest.raises(ToolError, match="changed on disk since you last read it"):
        await tool.invoke(patch("*** Update File: f.txt", "@@", "-one", "+uno"), ctx)
    assert path.read_text() == "one\ntwo, written by someone else\n"


async def test_session_remembers_written_files(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("one\n")
    await run(
        tool,
        ctx,
        patch("*** Update File: f.txt", "@@", "-one", "+uno", "*** Add File: g.txt", "+g"),
    )
    assert ctx.session.changed_since_seen(ctx.workspace / "f.txt") is False
    assert ctx.session.changed_since_seen(ctx.workspace / "g.txt") is False


async def test_confirmation_shows_summary_and_diff(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("one\n")
    prepared = tool.prepare(patch("*** Update File: f.txt", "@@", "-one", "+uno"), ctx)
    assert prepared.invocation_message == "Editing f.txt"
    assert prepared.past_tense_message == "Edited f.txt"
    assert prepared.confirmation is not None
    assert (
        "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+uno\n```"
        in prepared.confirmation.message
    )
    assert prepared.paths == ((ctx.workspace / "f.txt").resolve(),)
    assert (ctx.workspace / "f.txt").read_text() == "one\n"  # prepare never writes


async def test_end_of_file_marker_matches_the_tail(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "f.txt").write_text("x\ny\nx\n")
    await run(tool, ctx, patch("*** Update File: f.txt", "@@", "-x", "+z", "*** End of File"))
    assert (ctx.workspace / "f.txt").read_text() == "x\ny\nz\n"


async def test_heredoc_wrapper_is_accepted(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    text = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+hi\n*** End Patch\nEOF\n"
    await run(tool, ctx, {"input": text})
    assert (ctx.workspace / "h.txt").read_text() == "hi\n"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (("*** Add File: ../escape.txt", "+x"), "outside the workspace"),
        (("*** Add File: /etc/agent-tui-escape", "+x"), "outside the workspace"),
        (
            ("*** Update File: a.txt", "*** Move to: ../moved.txt", "@@", "-a", "+b"),
            "outside the workspace",
        ),
        (("*** Update File: link/secret.txt", "@@", "-s", "+t"), "outside the workspace"),
        (("*** Delete File: link/secret.txt",), "outside the workspace"),
    ],
)
async def test_paths_outside_the_workspace_refused(
    tool: ApplyPatchTool, ctx: ToolContext, tmp_path: Path, body: tuple[str, ...], error: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s\n")
    (ctx.workspace / "link").symlink_to(outside)
    (ctx.workspace / "a.txt").write_text("a\n")
    with pytest.raises(ToolError, match=error):
        tool.prepare(patch(*body), ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(patch(*body), ctx)
    assert (outside / "secret.txt").read_text() == "s\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not (tmp_path / "escape.txt").exists() and not (tmp_path / "moved.txt").exists()
    assert (ctx.workspace / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "Missing required argument `input`"),
        ({"input": 42}, "must be a string"),
        ({"input": ""}, "empty"),
        ({"input": "just some text"}, "first line of the patch"),
        ({"input": "*** Begin Patch\n*** Add File: a.txt\n+a\n"}, "last line of the patch"),
        (
            {"input": "*** Begin Patch\n*** Update File: a.txt\n@@\nnonsense\n*** End Patch"},
            "unexpected line",
        ),
        ({"input": "*** Begin Patch\n*** Add File: \n*** End Patch"}, "no path"),
        ("not a dict", "JSON object"),
    ],
)
async def test_bad_input(tool: ApplyPatchTool, ctx: ToolContext, args: Any, error: str) -> None:
    with pytest.raises(ToolError, match=error):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(args, ctx)


async def test_update_of_binary_file_refused(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(ToolError, match="binary"):
        await tool.invoke(patch("*** Update File: img.png", "@@", "-x", "+y"), ctx)
    # Deleting a binary file is fine.
    await run(tool, ctx, patch("*** Delete File: img.png"))
    assert not (ctx.workspace / "img.png").exists()


async def test_unwritable_folder_changes_nothing(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    (ctx.workspace / "ok.txt").write_text("ok\n")
    locked = ctx.workspace / "locked"
    locked.mkdir()
    (locked / "f.txt").write_text("f\n")
    locked.chmod(0o500)
    try:
        args = patch(
            "*** Update File: ok.txt",
            "@@",
            "-ok",
            "+OK",
            "*** Update File: locked/f.txt",
            "@@",
            "-f",
            "+F",
        )
        if os.geteuid() == 0:
            # root writes through mode 0500: then the patch must simply succeed in full.
            await run(tool, ctx, args)
            assert (locked / "f.txt").read_text() == "F\n" and (
                ctx.workspace / "ok.txt"
            ).read_text() == "OK\n"
        else:
            with pytest.raises(ToolError, match="nothing was changed"):
                await run(tool, ctx, args)
            assert (ctx.workspace / "ok.txt").read_text() == "ok\n"
            assert (locked / "f.txt").read_text() == "f\n"
    finally:
        locked.chmod(0o755)


async def test_staging_failure_leaves_tree_untouched(
    tool: ApplyPatchTool, ctx: ToolContext
) -> None:
    # A file where a folder must be created makes staging fail even for root: nothing may change.
    (ctx.workspace / "ok.txt").write_text("ok\n")
    (ctx.workspace / "blocker").write_text("I am a file\n")
    args = patch(
        "*** Update File: ok.txt", "@@", "-ok", "+OK", "*** Add File: blocker/sub/new.txt", "+n"
    )
    with pytest.raises(ToolError, match="nothing was changed"):
        await tool.invoke(args, ctx)
    assert (ctx.workspace / "ok.txt").read_text() == "ok\n"
    assert sorted(p.name for p in ctx.workspace.iterdir()) == ["blocker", "ok.txt"]


def test_parser_reports_hunk_numbers_and_anchors() -> None:
    ops = parse_patch(
        "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-a\n+b\n@@ def g():\n-c\n+d\n*** End Patch"
    )
    hunks = ops[0].hunks  # type: ignore[union-attr]
    assert [h.label for h in hunks] == ["hunk 1 (@@ def f():)", "hunk 2 (@@ def g():)"]
    assert (hunks[1].old, hunks[1].new) == (["c"], ["d"])


def test_fast_diff_equals_difflib_on_random_edits() -> None:
    # Confirmations are built from the hunks' edit positions instead of difflib (100x faster on a
    # 20,000-line file); the text must be the same as difflib's.
    rng = random.Random(1)
    for trial in range(500):
        old = [f"line {i}" for i in range(rng.randint(1, 60))]
        edits: list[tuple[int, int, list[str]]] = []
        at = 0
        while at < len(old):
            start = at + rng.randint(0, 8)
            if start > len(old):
                break
            count = rng.randint(0, min(3, len(old) - start))
            new = [f"new {trial} {start} {k}" for k in range(rng.randint(0 if count else 1, 3))]
            edits.append((start, count, new))
            at = start + count + 1
        lines = list(old)
        for start, count, new in reversed(edits):
            lines[start : start + count] = new
        before, after = "\n".join(old) + "\n", "\n".join(lines) + "\n"
        assert edits_diff(before, edits, "f", "f") == unified_diff(before, after, "f")


async def test_same_file_twice_in_one_patch(tool: ApplyPatchTool, ctx: ToolContext) -> None:
    # Later operations see earlier ones: update twice, then the diff still tells the truth.
    (ctx.workspace / "f.txt").write_text("a\nb\nc\n")
    args = patch(
        "*** Update File: f.txt", "@@", "-a", "+A",
        "*** Update File: f.txt", "@@", "-c", "+C",
        "*** Add File: g.txt", "+g",
        "*** Update File: g.txt", "*** Move to: h.txt", "@@", "-g", "+h",
    )  # fmt: skip
    prepared = tool.prepare(args, ctx)
    assert prepared.confirmation is not None
    assert "-a\n+A\n b\n-c\n+C\n" in prepared.confirmation.message
    result = await tool.invoke(args, ctx)
    assert (ctx.workspace / "f.txt").read_text() == "A\nb\nC\n"
    assert (ctx.workspace / "h.txt").read_text() == "h\n" and not (ctx.workspace / "g.txt").exists()
    assert result.content.splitlines()[1:] == ["M f.txt", "A h.txt (moved from g.txt)"]


async def test_file_changed_between_prepare_and_invoke_is_rechecked(
    tool: ApplyPatchTool, ctx: ToolContext
) -> None:
    # prepare()'s plan must not be reused once the file changed while the user was asked.
    path = ctx.workspace / "f.txt"
    path.write_text("one\n")
    args = patch("*** Update File: f.txt", "@@", "-one", "+uno")
    tool.prepare(args, ctx)
    path.write_text("something else entirely\n")
    with pytest.raises(ToolError, match="f.txt, hunk 1"):
        await tool.invoke(args, ctx)
    assert path.read_text() == "something else entirely\n"
    # And a different patch text never picks up another patch's plan.
    path.write_text("one\n")
    tool.prepare(args, ctx)
    await tool.invoke(patch("*** Update File: f.txt", "@@", "-one", "+eins"), ctx)
    assert path.read_text() == "eins\n"
