"""MCP prompt commands are one word whatever the server and prompt are called."""

from __future__ import annotations

import pytest

from agent_tui.mcp.prompts import command_name
from agent_tui.ui.local_commands import split_command


@pytest.mark.parametrize(
    ("server", "prompt", "expected"),
    [
        ("everything", "args-prompt", "mcp.everything.args-prompt"),
        ("git", "commit_message.v2", "mcp.git.commit_message.v2"),
        ("My Server", "code review", "mcp.My_Server.code_review"),
        ("srv", "résumé/fix\tnow", "mcp.srv.r_sum__fix_now"),
    ],
)
def test_command_names_are_one_plain_word(server: str, prompt: str, expected: str) -> None:
    name = command_name(server, prompt)
    assert name == expected
    # Typed back with arguments, the whole name is the command.
    assert split_command(f"/{name} city=Lyon") == (name, "city=Lyon")
