"""Issue 12 §4 headless: a turn's file changes are checkpointed in the state dir and
``agent-tui -p "/undo"`` puts back every byte and mode, never clobbering a hand edit."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import folders, git, git_refs, make_repo, tree_state
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

EDIT_TOOLS = ("create_file", "replace_string_in_file", "apply_patch", "run_in_terminal")

FILES = {
    "a.py": b"def a():\r\n    return 1\r\n",  # CRLF, executable
    "b.txt": b"keep\nold line\n",
    "c.txt": b"moving\n",
    "e.txt": b"to be deleted\n",
    "f.txt": b"xxx clean before the command\n",
    "g.txt": b"xxx committed\n",
    "h.txt": b"untouched\n",
}
MODES = {"a.py": 0o755, "b.txt": 0o640}

PATCH = (
    "*** Begin Patch\n"
    "*** Update File: c.txt\n"
    "*** Move to: moved/deep/c2.txt\n"
    "@@\n"
    "-moving\n"
    "+moved\n"
    "*** Delete File: e.txt\n"
    "*** Update File: b.txt\n"
    "@@\n"
    " keep\n"
    "-old line\n"
    "+new line\n"
    "*** End Patch\n"
)


def call(call_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "input": tool_input}]}


def agent(ws: Path, home: Path, fake: FakeLLM, prompt: str, *extra: str) -> Any:
    env = {"HOME": str(home), "AGENT_TUI_STATE_DIR": str(home / "state"), "ANTHROPIC_API_KEY": "k"}
    allow = [arg for tool in EDIT_TOOLS for arg in ("--allow-tool", tool)]
    return run_cli(
        ws,
        "-p",
        prompt,
        "--provider",
        "anthropic",
        "--base-url",
        fake.url,
        *allow,
        *extra,
        env=env,
    )


def the_turn() -> list[dict[str, Any]]:
    return [
        call(
            "r1",
            "replace_string_in_file",
            path="a.py",
            old_string="return 1",
            new_string="return 2",
        ),
        call("c1", "create_file", path="new/sub/n.txt", content="brand new\n"),
        call("p1", "apply_patch", input=PATCH),
        call("t1", "run_in_terminal", command="sed -i s/xxx/yyy/ f.txt g.txt"),
        {"text": "Done."},
    ]


def test_undo_restores_every_byte_and_mode_and_removes_created_files(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    make_repo(ws, FILES, MODES)
    (ws / "g.txt").write_bytes(b"xxx dirty by hand before the turn\n")  # not committed
    before, dirs_before, refs_before = tree_state(ws), folders(ws), git_refs(ws)
    status_before = git(ws, "status", "--porcelain")

    fake_llm.set_script(the_turn())
    proc = agent(ws, home, fake_llm, "change things")
    assert proc.returncode == 0, proc.stderr
    changed = tree_state(ws)
    assert changed["a.py"] == (b"def a():\r\n    return 2\r\n", 0o755)
    assert changed["new/sub/n.txt"][0] == b"brand new\n"
    assert changed["moved/deep/c2.txt"][0] == b"moved\n" and "c.txt" not in changed
    assert "e.txt" not in changed and changed["b.txt"] == (b"keep\nnew line\n", 0o640)
    assert changed["f.txt"][0].startswith(b"yyy") and changed["g.txt"][0].startswith(b"yyy")

    # Snapshots live in the state dir, private, and nothing was added to the repository.
    snapshots = [p for p in (home / "state" / "checkpoints").rglob("*")]
    assert any(p.name == "manifest.json" for p in snapshots)
    for path in snapshots:
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path
    assert git_refs(ws) == refs_before

    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert tree_state(ws) == before  # every byte and mode, created files gone, deleted ones back
    assert folders(ws) == dirs_before  # the folders made for new files went too
    assert git(ws, "status", "--porcelain") == status_before
    assert git_refs(ws) == refs_before
    for name in ("a.py", "b.txt", "c.txt", "e.txt", "f.txt", "g.txt", "new/sub/n.txt"):
        assert name in proc.stdout, proc.stdout
    assert "Cannot be undone" in proc.stdout and "sed -i" in proc.stdout
    assert len(fake_llm.requests) == 5  # /undo never reached the model

    proc = agent(ws, home, fake_llm, "/undo")  # the turn is undone: nothing more to do
    assert proc.returncode == 0 and "Nothing to undo" in proc.stdout
    assert tree_state(ws) == before


def test_a_file_edited_by_hand_after_the_turn_is_skipped_with_a_note_then_force_overwrites(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    make_repo(ws, {"x.txt": b"one\n", "y.txt": b"two\n"})
    fake_llm.set_script(
        [
            call("1", "replace_string_in_file", path="x.txt", old_string="one", new_string="ONE"),
            call("2", "replace_string_in_file", path="y.txt", old_string="two", new_string="TWO"),
            {"text": "ok"},
        ]
    )
    assert agent(ws, home, fake_llm, "edit").returncode == 0
    (ws / "x.txt").write_bytes(b"ONE and my own work\n")  # the user's edit after the agent's

    proc = agent(ws, home, fake_llm, "/undo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "x.txt").read_bytes() == b"ONE and my own work\n"  # not clobbered
    assert (ws / "y.txt").read_bytes() == b"two\n"
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert "changed outside the agent" in result["result"] and "`x.txt`" in result["result"]
    assert "/undo force" in result["result"]

    proc = agent(ws, home, fake_llm, "/undo force", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "x.txt").read_bytes() == b"one\n"
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    restored = [line for line in lines if line["type"] == "checkpoint_restored"]
    assert restored == [
        {"type": "checkpoint_restored", "files": ["x.txt"], "conversation_to": None, "turns": [0]}
    ]


def test_a_file_over_the_size_limit_is_not_snapshotted_and_undo_says_so(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text("[checkpoints]\nmax_file_mb = 0.001\n")  # about 1 KB
    big = b"big\n" + b"x" * 4096 + b"\n"
    make_repo(ws, {"big.txt": big, "small.txt": b"small\n"})
    fake_llm.set_script(
        [
            call("1", "replace_string_in_file", path="big.txt", old_string="big", new_string="BIG"),
            call(
                "2", "replace_string_in_file", path="small.txt", old_string="small", new_string="S"
            ),
            {"text": "ok"},
        ]
    )
    assert agent(ws, home, fake_llm, "edit").returncode == 0
    blobs = [p for p in (home / "state" / "checkpoints").rglob("blobs/*")]
    assert blobs and all(p.stat().st_size < 1024 for p in blobs)  # the big file was not copied

    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "small.txt").read_bytes() == b"small\n"
    assert (ws / "big.txt").read_bytes().startswith(b"BIG")
    assert "big.txt" in proc.stdout and "snapshot limit" in proc.stdout


def test_the_workspace_total_is_bounded_oldest_turns_go_first(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text("[checkpoints]\nmax_mb = 0.01\n")  # about 10 KB in all
    make_repo(ws, {f"f{i}.txt": (f"v{i}\n" + "z" * 4000).encode() for i in range(4)})
    for i in range(4):
        fake_llm.set_script(
            [
                call(
                    "1",
                    "replace_string_in_file",
                    path=f"f{i}.txt",
                    old_string=f"v{i}",
                    new_string="w",
                ),
                {"text": "ok"},
            ]
        )
        assert agent(ws, home, fake_llm, f"edit {i}").returncode == 0
    root = home / "state" / "checkpoints"
    total = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    assert total <= 0.01 * 1024 * 1024
    manifests = list(root.rglob("manifest.json"))
    assert 0 < len(manifests) < 4
    proc = agent(ws, home, fake_llm, "/undo")  # the newest turn is still there
    assert (ws / "f3.txt").read_bytes().startswith(b"v3"), proc.stdout


def test_undo_in_a_folder_without_git_says_what_commands_did_cannot_be_undone(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (ws / "notes.txt").write_text("a\n")
    fake_llm.set_script(
        [call("1", "run_in_terminal", command="echo b >> notes.txt"), {"text": "ok"}]
    )
    assert agent(ws, home, fake_llm, "append").returncode == 0
    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert "not a git repository" in proc.stdout and "echo b >> notes.txt" in proc.stdout
    assert (ws / "notes.txt").read_text() == "a\nb\n"
    assert os.listdir(ws) == ["notes.txt"]  # no checkpoint inside the workspace


def test_rewind_needs_the_app_and_says_so(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    proc = agent(ws, home, fake_llm, "/rewind")
    assert proc.returncode == 2 and "only in the app" in proc.stderr
    assert fake_llm.requests == []


def test_a_turn_whose_command_changed_nothing_leaves_no_checkpoint_in_the_way(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    make_repo(ws, {"x.txt": b"one\n"})
    fake_llm.set_script(
        [
            call("1", "replace_string_in_file", path="x.txt", old_string="one", new_string="ONE"),
            {"text": "ok"},
        ]
    )
    assert agent(ws, home, fake_llm, "edit").returncode == 0
    fake_llm.set_script([call("2", "run_in_terminal", command="git status"), {"text": "clean"}])
    assert agent(ws, home, fake_llm, "look").returncode == 0
    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "x.txt").read_bytes() == b"one\n" and "“edit”" in proc.stdout


@pytest.mark.parametrize(
    "inside", ["", "pkg"]
)  # the workspace is the repository, or a folder in it
def test_a_command_that_commits_its_change_is_still_undone_in_the_files(
    tmp_path: Path, fake_llm: FakeLLM, inside: str
) -> None:
    repo, home = tmp_path / "repo", tmp_path / "home"
    folder = f"{inside}/" if inside else ""
    make_repo(repo, {f"{folder}f.txt": b"xxx\n", f"{folder}g.txt": b"xxx g\n", "top.txt": b"t\n"})
    ws = repo / inside if inside else repo
    git(repo, "config", "user.name", "t")
    git(repo, "config", "user.email", "t@example.com")
    before = tree_state(repo)
    command = "sed -i s/xxx/yyy/ f.txt && git rm -q g.txt && git commit -qam wip"
    fake_llm.set_script([call("1", "run_in_terminal", command=command), {"text": "ok"}])
    assert agent(ws, home, fake_llm, "commit").returncode == 0
    assert git(repo, "status", "--porcelain") == ""  # committed: nothing dirty after it
    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert tree_state(repo) == before
    assert "git commit" in proc.stdout  # the commit itself stays, and /undo says so


def test_undo_never_follows_a_folder_swapped_for_a_link_out_of_the_workspace(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home, outside = tmp_path / "ws", tmp_path / "home", tmp_path / "outside"
    make_repo(ws, {"src/keep.txt": b"keep\n"})
    outside.mkdir()
    fake_llm.set_script(
        [
            call("1", "create_file", path="new/n.txt", content="brand new\n"),
            call(
                "2",
                "replace_string_in_file",
                path="src/keep.txt",
                old_string="keep",
                new_string="K",
            ),
            {"text": "ok"},
        ]
    )
    assert agent(ws, home, fake_llm, "make").returncode == 0
    # Later, both folders become links to a folder outside holding files of the same content.
    (outside / "n.txt").write_bytes(b"brand new\n")
    (outside / "keep.txt").write_bytes(b"K\n")
    for name in ("new", "src"):
        for child in (ws / name).iterdir():
            child.unlink()
        (ws / name).rmdir()
        (ws / name).symlink_to(outside)
    proc = agent(ws, home, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert (outside / "n.txt").read_bytes() == b"brand new\n"  # not deleted through the link
    assert (outside / "keep.txt").read_bytes() == b"K\n"  # not overwritten through it
    assert proc.stdout.count("is a link now") == 2, proc.stdout


def test_undo_in_a_resumed_session_undoes_that_sessions_turn(tmp_path: Path) -> None:
    """Checkpoints are filed under the session: ``-p "/undo" --resume A`` undoes session A's last
    turn, not the newest turn of the workspace (made by session B after it)."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    make_repo(ws, {"a.txt": b"one\n", "b.txt": b"bee\n"})
    edit_a = call("e1", "replace_string_in_file", path="a.txt", old_string="one", new_string="two")
    edit_b = call("e2", "replace_string_in_file", path="b.txt", old_string="bee", new_string="be")
    with FakeLLM([edit_a, {"text": "done"}]) as fake:
        first = agent(ws, home, fake, "edit a", "--output-format", "json")
    session_a = json.loads(first.stdout)["session_id"]
    with FakeLLM([edit_b, {"text": "done"}]) as fake:
        assert agent(ws, home, fake, "edit b").returncode == 0
    assert (ws / "a.txt").read_bytes() == b"two\n" and (ws / "b.txt").read_bytes() == b"be\n"
    with FakeLLM([]) as fake:
        undone = agent(ws, home, fake, "/undo", "--resume", session_a)
    assert undone.returncode == 0, undone.stderr
    assert (ws / "a.txt").read_bytes() == b"one\n"
    assert (ws / "b.txt").read_bytes() == b"be\n"  # session B's turn is not touched
