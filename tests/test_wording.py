"""Counted nouns and small wording fixes (issue 11 §10): "1 line", "Cleared 2 approvals"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.agent.references import ReferenceContext, builtin_reference_registry
from agent_tui.approvals.cli_cmds import reset_command
from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope
from agent_tui.plural import plural
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.create_file import CreateFileTool
from tests.helpers import builtin_tool


@pytest.mark.parametrize(
    ("count", "noun", "many", "expected"),
    [
        (1, "line", "", "1 line"),
        (0, "line", "", "0 lines"),
        (2, "line", "", "2 lines"),
        (1234, "line", "", "1,234 lines"),
        (1, "match", "matches", "1 match"),
        (3, "match", "matches", "3 matches"),
        (-1, "line", "", "-1 lines"),
    ],
)
def test_plural(count: int, noun: str, many: str, expected: str) -> None:
    assert plural(count, noun, many) == expected


def test_create_file_of_one_line_says_1_line(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=tmp_path, session=SessionState())
    tool = builtin_tool("create_file", CreateFileTool)
    prepared = tool.prepare({"path": "a.txt", "content": "only\n"}, ctx)
    assert prepared.past_tense_message == "Created a.txt (1 line)"


async def test_file_reference_of_one_line_says_1_line(tmp_path: Path) -> None:
    (tmp_path / "one.txt").write_text("x = 1\n", encoding="utf-8")
    session = SessionState()
    ctx = ReferenceContext(tmp_path, session, ToolContext(tmp_path, session))
    kind = builtin_reference_registry().get("file")
    assert kind is not None
    ref = await kind.resolve(ctx, "one.txt")
    assert ref.text.splitlines()[0] == "one.txt (1 line)"


def test_reset_all_says_cleared_2_approvals_not_2_all_approvals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    GrantStore(workspace).add(Scope.WORKSPACE, "run_in_terminal", "make")
    GrantStore(workspace).add(Scope.ALWAYS, "create_file")
    assert reset_command("all", workspace) == 0
    out = capsys.readouterr().out
    assert "Cleared 2 approvals (create_file, run_in_terminal)." in out
    assert "all approval" not in out
