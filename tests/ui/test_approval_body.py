"""Splitting a confirmation message into prose and fenced blocks for the approval dialog."""

from __future__ import annotations

import pytest

from agent_tui.approvals.types import CommandPart
from agent_tui.ui.screens.approval_body import Block, parts_text, split_blocks


@pytest.mark.parametrize(
    ("message", "blocks"),
    [
        (
            "```sh\nrm -rf x\n```\n\nWorking directory: `/w`",
            [Block("code", "rm -rf x"), Block("prose", "Working directory: `/w`")],
        ),
        # A command holding ``` is fenced with more backticks (terminal._fenced): not cut there.
        (
            "````sh\necho ```\n```\nrm -rf ~\n````\ntail",
            [Block("code", "echo ```\n```\nrm -rf ~"), Block("prose", "tail")],
        ),
        ("- `a.txt`\n\n```diff\n+x\n```", [Block("prose", "- `a.txt`"), Block("diff", "+x")]),
        ("```\n--- a\n+++ b\n@@ -1 +1 @@\n```", [Block("diff", "--- a\n+++ b\n@@ -1 +1 @@")]),
        ("~~~json\n{}\n~~~", [Block("code", "{}")]),
        # Never closed: the rest is the block (as CommonMark reads it), so nothing is lost.
        ("```sh\nls\nmore", [Block("code", "ls\nmore")]),
        ("plain text only", [Block("prose", "plain text only")]),
    ],
)
def test_split_blocks(message: str, blocks: list[Block]) -> None:
    assert split_blocks(message) == blocks


def test_parts_text_marks_each_part() -> None:
    text = parts_text(
        [
            CommandPart("git status", allowed_by="rule `git status` in ~/.agentrc"),
            CommandPart("rm -rf \x1b[2K", asks_because="rule `rm` = false in ~/.agentrc"),
            CommandPart("curl x"),
        ]
    )
    assert text is not None
    assert text.plain.splitlines() == [
        "3 parts:",
        "✓ git status — rule `git status` in ~/.agentrc",
        "! rm -rf ␛[2K — always asks: rule `rm` = false in ~/.agentrc",
        "? curl x — no rule or grant: needs your answer",
    ]
    assert parts_text([CommandPart("ls -la")]) is None  # one part: the reason line says it
    unparsed = parts_text(None)
    assert unparsed is not None and "could not be split" in unparsed.plain
