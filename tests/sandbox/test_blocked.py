"""What a command's output says the sandbox refused, as each kind of program says it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.sandbox.blocked import Block, write_blocks

HOME = Path("/home/me")


@pytest.mark.parametrize(
    ("output", "target"),
    [
        ("/bin/bash: line 2: /home/me/.profile: Read-only file system", "~/.profile"),
        ("touch: cannot touch '/home/me/.bashrc': Read-only file system", "~/.bashrc"),
        ("sed: couldn't open temporary file /etc/sedX1: Read-only file system", "/etc/sedX1"),
        ("OSError: [Errno 30] Read-only file system: '/etc/hosts'", "/etc/hosts"),
        ("Error: EROFS: read-only file system, open '/usr/lib/x.js'", "/usr/lib/x.js"),
        ("tee: /home/me/.bashrc: Read-only file system", "~/.bashrc"),
        ("cp: cannot create regular file 'x': Read-only file system", "x"),
    ],
)
def test_the_path_is_the_one_each_program_names(output: str, target: str) -> None:
    found = write_blocks(f"some output\n{output}\nmore", home=HOME)
    if "/" in target or target.startswith("~"):
        assert found == [Block("write", target)]
    else:  # a bare name with no folder: the block is still said, without a path
        assert found == [Block("write", "a path outside the writable folders")]


def test_each_path_is_said_once_and_at_most_five() -> None:
    lines = [f"touch: cannot touch '/x/{n}': Read-only file system" for n in range(8)]
    found = write_blocks("\n".join(lines + lines), home=HOME)
    assert [b.target for b in found] == [f"/x/{n}" for n in range(5)]


def test_other_errors_are_not_blocks() -> None:
    assert write_blocks("cat: /home/me/.ssh/id: No such file or directory", home=HOME) == []
