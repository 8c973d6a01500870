"""Saved big tool results (tools/result_files.py): what is saved, and what read_file may read."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import ToolContext, ToolResult
from agent_tui.tools.read_file import ReadFileTool
from agent_tui.tools.result_files import cap_result, results_dir, saved_result
from tests.helpers import builtin_tool, run_tool


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    return tmp_path / "state"


def saved_path(result: ToolResult) -> Path:
    return Path(result.content.split("The whole result is saved in ")[1].split(" (")[0])


def test_a_one_line_json_result_is_saved_indented_so_it_can_be_paged(ctx: ToolContext) -> None:
    value = {"items": [{"id": n, "name": f"item {n}"} for n in range(3000)]}
    text = json.dumps(value)
    capped = cap_result(ToolResult(text), ctx.workspace, "mcp_x_list", 10_000)
    assert len(capped.content) < 10_000
    saved = saved_path(capped).read_text()
    assert json.loads(saved) == value and saved.count("\n") > 3000
    assert "longest line" not in capped.content
    assert os.stat(saved_path(capped)).st_mode & 0o777 == 0o600


def test_a_result_within_the_limit_is_the_same_object(ctx: ToolContext) -> None:
    result = ToolResult("short")
    assert cap_result(result, ctx.workspace, "t", 10_000) is result


async def test_read_file_reads_saved_results_but_nothing_else_outside(
    ctx: ToolContext, tmp_path: Path, state: Path
) -> None:
    tool = builtin_tool("read_file", ReadFileTool)
    capped = cap_result(ToolResult("row\n" * 20_000), ctx.workspace, "t", 10_000)
    path = saved_path(capped)
    assert saved_result(ctx.workspace, str(path)) == path
    page = await run_tool(tool, ctx, path=str(path), start_line=5, end_line=6)
    assert "lines 5–6 of 20000" in page.content
    assert tool.prepare({"path": str(path)}, ctx).paths == ()  # nothing in the workspace to ask
    # A link placed in the results folder, a file beside the folder, another workspace's results:
    (state / "approvals.json").write_text("{}")
    link = results_dir(ctx.workspace) / "link.txt"
    link.symlink_to(state / "approvals.json")
    other = results_dir(tmp_path / "elsewhere")
    other.mkdir(parents=True)
    (other / "r.txt").write_text("theirs\n")
    for outside in (link, state / "approvals.json", other / "r.txt", path.parent):
        assert saved_result(ctx.workspace, str(outside)) is None
        with pytest.raises(ToolError, match="outside the workspace"):
            await run_tool(tool, ctx, path=str(outside))
