"""grep_search with ripgrep and with the pure-Python fallback (forced via AGENT_TUI_RG="")."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext, ToolResult
from agent_tui.tools.fs_walk import find_rg
from agent_tui.tools.grep_search import TEXT_WIDTH, GrepSearchTool
from agent_tui.tools.registry import builtin_registry
from tests.helpers import missing, run_tool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    ws = tmp_path / "ws"
    files = {
        "src/app.py": "import os\n\ndef main():\n    print('Hello')\n    return HELLO_CODE\n",
        "src/util.py": "def hello(name):\n    return f'hello {name}'\n",
        "docs/guide.md": "Say hello.\nPrices: $5 (approx.)\n",
        "build/gen.py": "hello from a build artefact\n",
        "weird:name.txt": "hello with a colon in the path\n",
        ".github/ci.yml": "run: echo hello\n",
    }
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / ".gitignore").write_text("build/\n")
    (ws / "image.bin").write_bytes(b"hello\x00\x01\x02binary")
    (ws / ".git").mkdir()
    (ws / ".git" / "notes").write_text("hello from git internals\n")
    return ToolContext(workspace=ws, session=SessionState())


@pytest.fixture
def tool() -> GrepSearchTool:
    built = builtin_registry().get("grep_search")
    assert isinstance(built, GrepSearchTool)
    return built


def hits(result: ToolResult) -> list[str]:
    return result.content.splitlines()[1:]


async def test_literal_smart_case_sorted_gitignored_skipped(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    result = await run_tool(tool, ctx, query="hello")
    assert hits(result) == [
        ".github/ci.yml:1: run: echo hello",
        "docs/guide.md:1: Say hello.",
        "src/app.py:4:     print('Hello')",
        "src/app.py:5:     return HELLO_CODE",
        "src/util.py:1: def hello(name):",
        "src/util.py:2:     return f'hello {name}'",
        "weird:name.txt:1: hello with a colon in the path",
    ]
    assert result.content.splitlines()[0] == "7 matches in 5 files:"


async def test_capital_letter_makes_it_case_sensitive(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    assert hits(await run_tool(tool, ctx, query="Hello")) == ["src/app.py:4:     print('Hello')"]


async def test_literal_is_not_a_regex(engine: str, tool: GrepSearchTool, ctx: ToolContext) -> None:
    assert hits(await run_tool(tool, ctx, query="$5 (approx.)")) == [
        "docs/guide.md:2: Prices: $5 (approx.)"
    ]


async def test_regex_and_include_pattern(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    result = await run_tool(
        tool, ctx, query=r"^def \w+\(", is_regexp=True, include_pattern="**/*.py"
    )
    assert hits(result) == ["src/app.py:3: def main():", "src/util.py:1: def hello(name):"]
    result = await run_tool(tool, ctx, query="hello", include_pattern="docs/*")
    assert hits(result) == ["docs/guide.md:1: Say hello."]


async def test_no_match_is_not_an_error(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    result = await run_tool(tool, ctx, query="zebra", include_pattern="*.py")
    assert result.content.startswith("No matches for `zebra` in files matching `*.py`")
    assert not result.is_error and result.data["count"] == 0


async def test_bad_regex_clear_error(engine: str, tool: GrepSearchTool, ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="(?s)Invalid regular expression.*is_regexp=false"):
        await run_tool(tool, ctx, query="(unclosed", is_regexp=True)
    # The same text as a literal is fine.
    assert (await run_tool(tool, ctx, query="(unclosed")).data["count"] == 0


async def test_long_lines_cut_around_the_match(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "min.js").write_text("x" * 5000 + "NEEDLE" + "y" * 5000 + "\n")
    [line] = hits(await run_tool(tool, ctx, query="NEEDLE"))
    assert line.startswith("min.js:1: …") and "NEEDLE" in line and line.endswith("…")
    assert len(line) < TEXT_WIDTH + 30


async def test_results_capped_with_a_note(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "many.txt").write_text("match me\n" * 40)
    result = await run_tool(tool, ctx, query="match me", max_results=10)
    assert result.content.splitlines()[0].startswith(
        "40 matches; showing 10 in 1 file."
    )  # not "1 files"
    assert hits(result) == [f"many.txt:{i}: match me" for i in range(1, 11)]


async def test_huge_result_set_stops_early(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "huge.txt").write_text("spam\n" * 50_000)
    result = await run_tool(tool, ctx, query="spam", max_results=5)
    assert result.data["incomplete"] is True
    assert result.content.splitlines()[0].startswith("1000+ matches; showing 5")
    assert hits(result)[0] == "huge.txt:1: spam"


async def test_stopping_rg_with_a_full_output_buffer_does_not_hang(
    tool: GrepSearchTool, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tiny stream limit makes the reader pause on a full buffer at once, as it does by chance on
    # a slow machine. On Python 3.11, waiting for a killed process whose stdout reader is paused
    # never returned: CI hung here for 180 s.
    if find_rg() is None:
        missing("ripgrep is not installed")
    monkeypatch.setattr(
        asyncio,
        "create_subprocess_exec",
        functools.partial(asyncio.create_subprocess_exec, limit=16),
    )
    (ctx.workspace / "huge.txt").write_text("spam\n" * 50_000)
    result = await asyncio.wait_for(run_tool(tool, ctx, query="spam", max_results=5), 30)
    assert result.data["incomplete"] is True
    assert hits(result)[0] == "huge.txt:1: spam"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "Missing required argument `query`"),
        ({"query": 3}, "must be a string"),
        ({"query": ""}, "empty"),
        ({"query": "a\nb"}, "single line"),
        ({"query": "a", "is_regexp": "maybe"}, "true or false"),
        ({"query": "a", "include_pattern": "../*"}, "outside the workspace"),
        ({"query": "a", "include_pattern": "{a,b"}, "Invalid include_pattern"),
        ({"query": "a", "include_pattern": "!*.md"}, "not supported"),
        ({"query": "a", "max_results": 10_000}, "at most"),
        ([], "JSON object"),
    ],
)
async def test_bad_input(tool: GrepSearchTool, ctx: ToolContext, args: Any, error: str) -> None:
    with pytest.raises(ToolError, match=error):
        tool.prepare(args, ctx)
    with pytest.raises(ToolError, match=error):
        await tool.invoke(args, ctx)


async def test_symlinked_folder_outside_not_searched(
    engine: str, tool: GrepSearchTool, ctx: ToolContext, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("topsecret\n")
    (ctx.workspace / "escape").symlink_to(outside)
    (ctx.workspace / "escape.txt").symlink_to(outside / "secret.txt")
    assert (await run_tool(tool, ctx, query="topsecret")).data["count"] == 0


async def test_invalid_utf8_lines_still_found(
    engine: str, tool: GrepSearchTool, ctx: ToolContext
) -> None:
    (ctx.workspace / "latin1.txt").write_bytes(b"caf\xe9 needle\n")
    assert hits(await run_tool(tool, ctx, query="needle")) == ["latin1.txt:1: caf\ufffd needle"]


def test_prepare_messages(tool: GrepSearchTool, ctx: ToolContext) -> None:
    prepared = tool.prepare({"query": "TODO", "include_pattern": "*.py"}, ctx)
    assert prepared.invocation_message == "Searching for `TODO` in `*.py`"
    assert prepared.past_tense_message == "Searched for `TODO` in `*.py`"


@pytest.mark.parametrize("include", ["src", "src/", "./src", "src/**"])
async def test_include_pattern_naming_a_folder(
    engine: str, tool: GrepSearchTool, ctx: ToolContext, include: str
) -> None:
    # ripgrep's -g matches file paths only; a folder name must still mean "the files in it".
    result = await run_tool(tool, ctx, query="def", include_pattern=include)
    assert hits(result) == ["src/app.py:3: def main():", "src/util.py:1: def hello(name):"]
