"""get_changed_files on real git repositories in tmp_path."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.changed_files import PER_FILE_CHARS, TOTAL_CHARS
from agent_tui.tools.registry import builtin_registry


@pytest.fixture(autouse=True)
def git_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.com")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    if files:
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


async def changed(workspace: Path, **input: Any) -> str:
    tool = builtin_registry().get("get_changed_files")
    ctx = ToolContext(workspace=workspace, session=SessionState())
    tool.prepare(input, ctx)
    result = await tool.invoke(input, ctx)
    assert result.is_error is False
    return str(result.content)


async def test_staged_unstaged_and_untracked_with_diffs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "alpha\n", "b.txt": "bravo\n", "gone.txt": "x\n"})
    (repo / "a.txt").write_text("alpha\nstaged line\n")
    git(repo, "add", "a.txt")
    (repo / "b.txt").write_text("bravo changed\n")
    (repo / "gone.txt").unlink()
    (repo / "new.txt").write_text("hello untracked\n")

    report = await changed(repo)
    assert f"Repository: {repo.resolve()} (branch main)" in report
    assert "Staged (1):\n  modified: a.txt" in report
    assert "Unstaged (2):\n  modified: b.txt\n  deleted: gone.txt" in report
    assert "Untracked (1):\n  new.txt" in report
    staged, unstaged = report.split("## Staged diff")[1].split("## Unstaged diff")
    assert "+staged line" in staged and "bravo" not in staged
    assert "-bravo\n+bravo changed" in unstaged
    assert "+hello untracked" in report.split("## Untracked files")[1]


async def test_staged_only_leaves_out_unstaged_and_untracked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "alpha\n", "b.txt": "bravo\n"})
    (repo / "a.txt").write_text("alpha staged\n")
    git(repo, "add", "a.txt")
    (repo / "b.txt").write_text("bravo unstaged\n")
    (repo / "new.txt").write_text("untracked\n")

    report = await changed(repo, staged_only=True)
    assert "+alpha staged" in report
    assert "bravo unstaged" not in report and "new.txt" not in report
    assert "2 unstaged or untracked files not shown" in report


async def test_a_file_both_staged_and_modified_again_shows_in_both(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"})
    (repo / "a.txt").write_text("two\n")
    git(repo, "add", "a.txt")
    (repo / "a.txt").write_text("three\n")
    report = await changed(repo)
    assert "Staged (1):\n  modified: a.txt" in report
    assert "Unstaged (1):\n  modified: a.txt" in report
    assert "-one\n+two" in report and "-two\n+three" in report


async def test_rename_is_reported_once_as_a_rename(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"old.txt": "same content\n" * 5})
    git(repo, "mv", "old.txt", "new.txt")
    report = await changed(repo)
    assert "Staged (1):\n  renamed: new.txt" in report
    assert "rename from old.txt" in report


async def test_repo_with_no_commits_yet(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {})
    (repo / "staged.txt").write_text("first content\n")
    git(repo, "add", "staged.txt")
    (repo / "loose.txt").write_text("loose\n")
    report = await changed(repo)
    assert "(branch main, no commits yet)" in report
    assert "Staged (1):\n  added: staged.txt" in report
    assert "+first content" in report
    assert "Untracked (1):\n  loose.txt" in report


async def test_clean_repo_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    assert "No changes: the working tree is clean." in await changed(repo)


async def test_outside_a_git_repository_is_a_clear_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    tool = builtin_registry().get("get_changed_files")
    with pytest.raises(ToolError, match=f"not a git repository: {plain}"):
        await tool.invoke({}, ToolContext(workspace=plain, session=SessionState()))


async def test_workspace_in_a_subfolder_reports_only_its_changes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"top.txt": "t\n", "pkg/mod.py": "m = 1\n"})
    (repo / "top.txt").write_text("t changed\n")
    (repo / "pkg" / "mod.py").write_text("m = 2\n")
    report = await changed(repo / "pkg")
    assert "pkg/mod.py" in report and "+m = 2" in report
    assert "top.txt" not in report


async def test_one_huge_diff_is_cut_and_says_so(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"big.txt": "", "small.txt": "s\n"})
    (repo / "big.txt").write_text("".join(f"line {i}\n" for i in range(5000)))
    (repo / "small.txt").write_text("s changed\n")
    report = await changed(repo)
    assert "[... diff cut here:" in report
    assert "+line 4999" not in report
    assert "+s changed" in report  # the next file still gets its diff
    assert len(report) < PER_FILE_CHARS + 2000


async def test_total_cap_leaves_out_later_diffs_and_says_so(tmp_path: Path) -> None:
    names = [f"f{i:02}.txt" for i in range(20)]
    repo = make_repo(tmp_path / "repo", dict.fromkeys(names, ""))
    for name in names:
        (repo / name).write_text("".join(f"{name} {j}\n" for j in range(250)))
    report = await changed(repo)
    assert "[Total cap reached: diffs of" in report
    assert len(report) < TOTAL_CHARS + 5000
    assert "modified: f19.txt" in report  # still listed by name


async def test_untracked_binary_file_is_not_dumped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    (repo / "image.bin").write_bytes(b"\x89PNG\x00\x01\x02" * 100)
    report = await changed(repo)
    assert "new file image.bin: binary, 700 bytes" in report


async def test_bad_staged_only_is_a_tool_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "a\n"})
    tool = builtin_registry().get("get_changed_files")
    ctx = ToolContext(workspace=repo, session=SessionState())
    with pytest.raises(ToolError, match="`staged_only` must be true or false"):
        tool.prepare({"staged_only": "yes"}, ctx)
    with pytest.raises(ToolError, match="`staged_only` must be true or false"):
        await tool.invoke({"staged_only": 1}, ctx)


async def test_no_program_from_a_submodules_git_config_runs(tmp_path: Path) -> None:
    # git status looks inside a submodule by running git status there, under the submodule's own
    # config, whose filter drivers the app never read; --ignore-submodules=dirty keeps git out.
    sub = make_repo(tmp_path / "sub", {".gitattributes": "* filter=evil\n", "f.txt": "x\n"})
    top = make_repo(tmp_path / "top", {"t.txt": "t\n"})
    git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    git(top, "commit", "-q", "-m", "submodule")
    marker = tmp_path / "MARKER"
    program = tmp_path / "evil.sh"
    program.write_text(f"#!/bin/sh\necho ran >> {marker}\ncat\n")
    program.chmod(0o755)
    git(top / "sub", "config", "filter.evil.clean", str(program))
    git(top / "sub", "config", "core.fsmonitor", str(program))
    (top / "sub" / "f.txt").write_text("changed\n")
    (top / "t.txt").write_text("t changed\n")

    report = await changed(top)

    assert "+t changed" in report
    assert not marker.exists()
