"""Prompt history on disk: per workspace, tolerant of a cut line, trimmed to the newest entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.ui import prompt_history as ph


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))


def test_each_workspace_has_its_own_history(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    ph.append_history(a, "in a")
    ph.append_history(b, "in b\nsecond line")
    assert ph.load_history(a) == ["in a"]
    assert ph.load_history(b) == ["in b\nsecond line"]
    assert not list(a.iterdir())  # nothing is written into the workspace


def test_a_line_cut_by_a_crash_is_skipped_and_the_rest_kept(tmp_path: Path) -> None:
    ph.append_history(tmp_path, "one")
    with ph.history_path(tmp_path).open("a") as fh:
        fh.write('"unterminated\n')
    ph.append_history(tmp_path, "two")
    assert ph.load_history(tmp_path) == ["one", "two"]


def test_history_is_trimmed_to_the_newest_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ph, "MAX_ENTRIES", 3)
    for i in range(10):
        ph.append_history(tmp_path, f"p{i}")
    assert ph.load_history(tmp_path) == ["p7", "p8", "p9"]
    lines = ph.history_path(tmp_path).read_text().splitlines()
    assert len(lines) == 3  # rewritten once it grew past twice the cap
