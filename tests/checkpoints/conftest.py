"""Real git repositories for the checkpoint tests."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    proc = subprocess.run(
        ["git", *args],
        cwd=repo,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    return proc.stdout


def make_repo(repo: Path, files: dict[str, bytes], modes: dict[str, int] | None = None) -> None:
    """A repository at ``repo`` with ``files`` committed (and their ``modes``)."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    for name, data in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if modes and name in modes:
            path.chmod(modes[name])
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")


def tree_state(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file outside .git: bytes and permission bits."""
    found: dict[str, tuple[bytes, int]] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if relative.parts[0] == ".git" or not path.is_file():
            continue
        found[relative.as_posix()] = (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return found


def folders(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_dir() and p.relative_to(root).parts[0] != ".git"
    }


def git_refs(repo: Path) -> str:
    """Refs, the stash and the object count: a checkpoint must add nothing to any of them."""
    refs = git(repo, "for-each-ref")
    stash = git(repo, "stash", "list")
    objects = git(repo, "count-objects", "-v")
    return refs + stash + objects
