"""file_search with ripgrep and with the pure-Python fallback (forced via AGENT_TUI_RG="")."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext, ToolResult
from agent_tui.tools.file_search import FileSearchTool
from agent_tui.tools.registry import builtin_registry
from tests.helpers import run_tool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    for rel, text in {
        "src/app.py": "app",
        "src/util/helpers.py": "h",
        "src/util/README.md": "r",
        "tests/test_app.py": "t",
        "README.md": "top",
        ".github/workflows/ci.yml": "ci",
        "build/out.py": "ignored",
        "debug.log": "ignored",
        "src/gen/keep.py": "re-included",
        "node_modules/lib/index.js": "ignored",
    }.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (ws / ".gitignore").write_text("build/\n*.log\nnode_modules\n")
    (ws / "src" / ".gitignore").write_text("gen/*\n!gen/keep.py\n")
    (ws / "src" / "gen" / "drop.py").write_text("ignored")
    (ws / ".git").mkdir()
    (ws / ".git" / "config.py").write_text("never listed")
    return ToolContext(workspace=ws, session=SessionState())


@pytest.fixture
def tool() -> FileSearchTool:
    built = builtin_registry().get("file_search")
    assert isinstance(built, FileSearchTool)
    return built


def paths(result: ToolResult) -> list[str]:
    return result.content.splitlines()[1:]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("**/*.py", ["src/app.py", "src/gen/keep.py", "src/util/helpers.py", "tests/test_app.py"]),
        ("*.py", ["src/app.py", "src/gen/keep.py", "src/util/helpers.py", "tests/test_app.py"]),
        ("src/*.py", ["src/app.py"]),
        ("src/**/*.py", ["src/app.py", "src/gen/keep.py", "src/util/helpers.py"]),
        ("readme.md", ["README.md", "src/util/README.md"]),
        ("**/*.{yml,md}", [".github/workflows/ci.yml", "README.md", "src/util/README.md"]),
        ("./tests/test_?pp.py", ["tests/test_app.py"]),
    ],
)
async def test_globs_sorted_and_gitignore_honoured(
    engine: str, tool: FileSearchTool, ctx: ToolContext, pattern: str, expected: list[str]
) -> None:
    result = await run_tool(tool, ctx, pattern=pattern)
    assert paths(result) == expected
    assert result.data["count"] == len(expected)


async def test_bare_name_falls_back_to_substring(
    engine: str, tool: FileSearchTool, ctx: ToolContext
) -> None:
    result = await run_tool(tool, ctx, pattern="helpers")
    assert "searched for `*helpers*` instead" in result.content
    assert result.content.splitlines()[-1] == "src/util/helpers.py"


async def test_no_match_says_so(engine: str, tool: FileSearchTool, ctx: ToolContext) -> None:
    result = await run_tool(tool, ctx, pattern="**/*.rs")
    assert result.content.startswith("No files match") and result.data["count"] == 0


async def test_capped_with_note(engine: str, tool: FileSearchTool, ctx: ToolContext) -> None:
    for i in range(30):
        (ctx.workspace / "many" / f"m{i:02}.txt").parent.mkdir(exist_ok=True)
        (ctx.workspace / "many" / f"m{i:02}.txt").write_text("")
    result = await run_tool(tool, ctx, pattern="many/*.txt", max_results=5)
    assert result.content.splitlines()[0].startswith("30 files match")
    assert "showing the first 5" in result.content
    assert paths(result) == [f"many/m{i:02}.txt" for i in range(5)]


async def test_works_in_a_real_git_repo(
    engine: str, tool: FileSearchTool, ctx: ToolContext
) -> None:
    # rg treats a real repo's .gitignore like the no-repo case: same answer either way.
    subprocess.run(["git", "init", "-q"], cwd=ctx.workspace, check=True)
    result = await run_tool(tool, ctx, pattern="*.log")
    assert result.content.startswith("No files match")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "Missing required argument `pattern`"),
        ({"pattern": 5}, "must be a string"),
        ({"pattern": "  "}, "empty"),
        ({"pattern": "../*.py"}, "outside the workspace"),
        ({"pattern": "/etc/*"}, "outside the workspace"),
        ({"pattern": "*.{py"}, "Invalid glob"),
        ({"pattern": "*.py", "max_results": 0}, "at least 1"),
        ({"pattern": "*.py", "max_results": "many"}, "integer"),
    ],
)
async def test_bad_input(
    tool: FileSearchTool, ctx: ToolContext, args: dict[str, Any], error: str
) -> None:
    with pytest.raises(ToolError, match=error):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(args, ctx)


async def test_absolute_pattern_inside_workspace(tool: FileSearchTool, ctx: ToolContext) -> None:
    result = await run_tool(tool, ctx, pattern=f"{ctx.workspace.resolve()}/src/*.py")
    assert paths(result) == ["src/app.py"]


async def test_symlink_to_outside_is_not_followed(
    engine: str, tool: FileSearchTool, ctx: ToolContext, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("s")
    (ctx.workspace / "escape").symlink_to(outside)
    result = await run_tool(tool, ctx, pattern="**/secret.py")
    assert result.content.startswith("No files match")


def test_prepare_messages(tool: FileSearchTool, ctx: ToolContext) -> None:
    prepared = tool.prepare({"pattern": "**/*.py"}, ctx)
    assert prepared.invocation_message == "Searching for files matching `**/*.py`"
    assert prepared.past_tense_message == "Searched for files matching `**/*.py`"


@pytest.mark.parametrize("pattern", ["src/util", "src/util/", "./src/util"])
async def test_folder_name_lists_its_files(
    engine: str, tool: FileSearchTool, ctx: ToolContext, pattern: str
) -> None:
    result = await run_tool(tool, ctx, pattern=pattern)
    assert paths(result) == ["src/util/README.md", "src/util/helpers.py"]
