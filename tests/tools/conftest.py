"""Fixtures shared by the tool tests: an empty workspace context and the search engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.fs_walk import RG_ENV, find_rg
from tests.helpers import missing


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A context over an empty workspace ``<tmp>/ws`` with a fresh session."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace, session=SessionState())


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a search test with ripgrep and again with the pure-Python fallback."""
    if request.param == "python":
        monkeypatch.setenv(RG_ENV, "")
        assert find_rg() is None
    else:
        monkeypatch.delenv(RG_ENV, raising=False)
        if find_rg() is None:
            missing("ripgrep is not installed")
    return str(request.param)
