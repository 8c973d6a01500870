"""The grant store in one process: scopes, lookup by real path, revoke, reset, bad files."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    return a, b


def test_scopes_and_where_they_apply(state: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    store_a = GrantStore(a, state)
    store_a.add(Scope.SESSION, "create_file")
    store_a.add(Scope.WORKSPACE, "run_in_terminal", "make")
    store_a.add(Scope.ALWAYS, "fetch_webpage", "https://docs.python.org")
    assert [(g.scope, g.tool) for g in store_a.grants()] == [
        (Scope.SESSION, "create_file"),
        (Scope.WORKSPACE, "run_in_terminal"),
        (Scope.ALWAYS, "fetch_webpage"),
    ]
    # A new instance in the same folder: no session grant, the persisted ones.
    assert [g.scope for g in GrantStore(a, state).grants()] == [Scope.WORKSPACE, Scope.ALWAYS]
    # Another folder: only the always grant.
    assert [g.tool for g in GrantStore(b, state).grants()] == ["fetch_webpage"]


def test_remember_keeps_the_grant_for_the_session_when_the_state_dir_is_unwritable(
    tmp_path: Path, folders: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "not-a-dir"
    blocked.write_text("a file where the state dir should be")  # fails even for root
    store = GrantStore(folders[0], blocked)
    with pytest.raises(OSError):
        store.add(Scope.WORKSPACE, "create_file")
    grant = store.remember(Scope.WORKSPACE, "run_in_terminal", "make")
    assert (grant.scope, grant.tool, grant.pattern) == (Scope.SESSION, "run_in_terminal", "make")
    assert [g.pattern for g in store.for_tool("run_in_terminal")] == ["make"]
    assert (
        "could not save a workspace grant" in caplog.text and "kept for this session" in caplog.text
    )


def test_workspace_grants_are_keyed_by_real_path(
    state: Path, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    a, _ = folders
    link = tmp_path / "link-to-a"
    link.symlink_to(a)
    GrantStore(link, state).add(Scope.WORKSPACE, "run_in_terminal", "make")
    assert [g.pattern for g in GrantStore(a / "." / ".." / "a", state).grants()] == ["make"]
    stored = json.loads((state / "approvals.json").read_text())["grants"]
    assert stored[0]["workspace"] == str(a.resolve())


def test_grant_record_fields_and_file_is_private(state: Path, folders: tuple[Path, Path]) -> None:
    a, _ = folders
    grant = GrantStore(a, state).add(Scope.WORKSPACE, "run_in_terminal", "npm test")
    entry = json.loads((state / "approvals.json").read_text())["grants"][0]
    assert entry == {
        "id": grant.id,
        "scope": "workspace",
        "tool": "run_in_terminal",
        "pattern": "npm test",
        "workspace": str(a.resolve()),
        "granted_at": grant.granted_at,
    }
    assert grant.granted_at.endswith("+00:00")
    assert stat.S_IMODE((state / "approvals.json").stat().st_mode) == 0o600
    assert list(a.iterdir()) == []  # nothing is ever written into the workspace


def test_once_is_not_remembered(state: Path, folders: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError):
        GrantStore(folders[0], state).add(Scope.ONCE, "create_file")


def test_revoke_by_id_or_number(state: Path, folders: tuple[Path, Path]) -> None:
    a, _ = folders
    store = GrantStore(a, state)
    first = store.add(Scope.SESSION, "create_file")
    second = store.add(Scope.WORKSPACE, "run_in_terminal", "make")
    third = store.add(Scope.ALWAYS, "fetch_webpage")
    assert store.revoke(second.id) == second
    assert store.revoke("1") == first  # the numbering of grants(): session first
    assert store.grants() == [third]
    assert store.revoke("99") is None
    assert store.revoke("nope") is None
    assert store.revoke("0") is None
    assert GrantStore(a, state).grants() == [third]


def test_revoke_cannot_reach_another_folders_grant(state: Path, folders: tuple[Path, Path]) -> None:
    a, b = folders
    other = GrantStore(b, state).add(Scope.WORKSPACE, "create_file")
    assert GrantStore(a, state).revoke(other.id) is None
    assert GrantStore(b, state).grants() == [other]


@pytest.mark.parametrize(
    ("scope", "removed", "left_in_a", "left_in_b"),
    [
        ("session", ["session"], ["ws-a", "always"], ["ws-b", "always"]),
        ("workspace", ["ws-a"], ["session", "always"], ["ws-b", "always"]),
        ("always", ["always"], ["session", "ws-a"], ["ws-b"]),
        ("all", ["session", "ws-a", "ws-b", "always"], [], []),
    ],
)
def test_reset_clears_exactly_the_scope(
    state: Path,
    folders: tuple[Path, Path],
    scope: str,
    removed: list[str],
    left_in_a: list[str],
    left_in_b: list[str],
) -> None:
    a, b = folders
    store_a = GrantStore(a, state)
    store_a.add(Scope.SESSION, "t", "session")
    store_a.add(Scope.WORKSPACE, "t", "ws-a")
    GrantStore(b, state).add(Scope.WORKSPACE, "t", "ws-b")
    store_a.add(Scope.ALWAYS, "t", "always")
    assert [g.pattern for g in store_a.reset(scope)] == removed
    assert [g.pattern for g in store_a.grants()] == left_in_a
    assert [g.pattern for g in GrantStore(b, state).grants()] == left_in_b


def test_reset_unknown_scope(state: Path, folders: tuple[Path, Path]) -> None:
    with pytest.raises(ValueError, match="unknown scope"):
        GrantStore(folders[0], state).reset("forever")


def test_corrupt_file_grants_nothing_and_is_kept_aside(
    state: Path, folders: tuple[Path, Path]
) -> None:
    state.mkdir(parents=True, exist_ok=True)
    (state / "approvals.json").write_text('{"grants": [ {"id": "x", "scope": "always", ')
    store = GrantStore(folders[0], state)
    assert store.grants() == []
    store.add(Scope.ALWAYS, "create_file")
    assert [g.tool for g in store.grants()] == ["create_file"]
    aside = list(state.glob("approvals.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text().startswith('{"grants"')


def test_unknown_entries_are_ignored(state: Path, folders: tuple[Path, Path]) -> None:
    state.mkdir(parents=True, exist_ok=True)
    entries = [
        {"id": "1", "scope": "forever", "tool": "x"},
        {"id": "2", "scope": "session", "tool": "x"},  # a session grant on disk means nothing
        "not an object",
        {"id": "3", "scope": "always", "tool": "ok", "pattern": None},
    ]
    (state / "approvals.json").write_text(json.dumps({"version": 1, "grants": entries}))
    assert [g.id for g in GrantStore(folders[0], state).grants()] == ["3"]
