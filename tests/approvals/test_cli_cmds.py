"""--reset-tool-confirmations, --list-approvals and --revoke-approval as functions (exit codes, output)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.approvals.cli_cmds import list_command, reset_command, revoke_command
from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope


def test_list_shows_scope_tool_pattern_and_time(
    state: Path, workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert list_command(workspace) == 0
    assert "No remembered approvals." in capsys.readouterr().out
    grant = GrantStore(workspace).add(Scope.WORKSPACE, "run_in_terminal", "npm test")
    GrantStore(workspace).add(Scope.ALWAYS, "create_file")
    assert list_command(workspace) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["#", "id", "scope", "tool", "pattern", "granted", "(UTC)"]
    assert out[1].split()[:6] == ["1", grant.id, "workspace", "run_in_terminal", "npm", "test"]
    assert grant.granted_at[:10] in out[1]
    assert "(any call)" in out[2]


def test_revoke(state: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grant = GrantStore(workspace).add(Scope.ALWAYS, "create_file")
    assert revoke_command("nope", workspace) == 1
    assert "no approval 'nope'" in capsys.readouterr().err
    assert revoke_command(grant.id, workspace) == 0
    assert "Revoked create_file" in capsys.readouterr().out
    assert GrantStore(workspace).grants() == []


def test_reset(state: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    GrantStore(workspace).add(Scope.WORKSPACE, "run_in_terminal", "make")
    GrantStore(workspace).add(Scope.ALWAYS, "create_file")
    assert reset_command("workspace", workspace) == 0
    out = capsys.readouterr().out
    assert "Cleared 1 workspace approval (run_in_terminal)." in out and "`make`" in out
    assert reset_command("workspace", workspace) == 0
    assert "No workspace approvals to clear." in capsys.readouterr().out
    assert reset_command("session", workspace) == 0
    assert "nothing stored to clear" in capsys.readouterr().out
    assert [g.tool for g in GrantStore(workspace).grants()] == ["create_file"]
    assert reset_command("all", workspace) == 0
    assert GrantStore(workspace).grants() == []


def test_reset_bad_scope(state: Path, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert reset_command("everything", workspace) == 2
    assert "unknown scope 'everything'" in capsys.readouterr().err
