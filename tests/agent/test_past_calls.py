"""Long arguments of calls that ran leave the conversation (agent/past_calls.py)."""

from __future__ import annotations

from agent_tui.agent.past_calls import NOTE_KEY, slim_past_calls
from agent_tui.conversation import Conversation, Message, ToolResultBlock, ToolUseBlock


def test_only_answered_calls_lose_their_long_arguments() -> None:
    patch = "*** Begin Patch\n" + "+x\n" * 5000
    many = {"items": ["y" * 1000 for _ in range(40)]}  # no one string is long; together they are
    conversation = Conversation(
        [
            Message("assistant", [ToolUseBlock("a", "apply_patch", {"input": patch})]),
            Message("user", [ToolResultBlock("a", "done")]),
            Message("assistant", [ToolUseBlock("b", "mcp_x_put", many)]),
            Message("user", [ToolResultBlock("b", "done")]),
            Message(
                "assistant", [ToolUseBlock("c", "create_file", {"path": "p", "content": patch})]
            ),
        ]
    )
    assert slim_past_calls(conversation) == 2
    first, _, second, _, last = conversation.messages
    [a] = first.content
    assert isinstance(a, ToolUseBlock)
    assert a.input["input"].startswith(f"[{len(patch):,} characters left out")
    [b] = second.content
    assert isinstance(b, ToolUseBlock) and list(b.input) == [NOTE_KEY]
    [c] = last.content
    assert isinstance(c, ToolUseBlock) and c.input["content"] == patch  # not run yet: intact
    assert slim_past_calls(conversation) == 0  # once is enough
