"""Compaction never leaves a conversation either API would reject (issue 12 §3).

``Conversation.compact`` is tried at every index of conversations with tool rounds, merged
cancel results, thinking and earlier summaries: it either refuses (ValueError) or leaves a
conversation that passes the strict request validator for both APIs. ``compaction_point``
always picks a cut that ``compact`` accepts, keeping the last turns (or rounds) verbatim.
"""

from __future__ import annotations

import pytest

from agent_tui.agent.compaction.boundary import compaction_point
from agent_tui.conversation import (
    Conversation,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    is_summary,
    user_text,
)
from agent_tui.providers.anthropic import messages_body
from agent_tui.providers.base import ProviderRequest
from agent_tui.providers.openai import completions_body
from tests.fakes.validate import anthropic_problems, openai_problems


def call(n: int) -> Message:
    return Message(
        "assistant",
        [
            ThinkingBlock("hmm", "sig"),
            TextBlock(f"step {n}"),
            ToolUseBlock(f"c{n}", "read_file", {}),
        ],
    )


def result(n: int, extra: str = "") -> Message:
    blocks: list[TextBlock | ToolResultBlock] = [ToolResultBlock(f"c{n}", f"out {n}")]
    return Message("user", [*blocks, *([TextBlock(extra)] if extra else [])])


def answer(text: str) -> Message:
    return Message("assistant", [TextBlock(text)])


def conversations() -> dict[str, list[Message]]:
    return {
        "turns with rounds": [
            user_text("q1"), call(1), result(1), call(2), result(2), answer("a1"),
            user_text("q2"), answer("a2"),
            user_text("q3"), call(3), result(3), answer("a3"), user_text("q4"),
        ],
        "one long turn": [
            user_text("q"), call(1), result(1), call(2), result(2), call(3), result(3),
            call(4), result(4), call(5), result(5),
        ],
        "cancel merged a new request into results": [
            user_text("q1"), call(1), result(1, "q2 after a cancel"), answer("a2"),
            user_text("q3"), call(2), result(2), answer("a3"), user_text("q4"), answer("a4"),
            user_text("q5"),
        ],
    }  # fmt: skip


def problems_of(messages: list[Message]) -> list[str]:
    request = ProviderRequest("m", "system", messages)
    return anthropic_problems(messages_body(request)) + openai_problems(
        completions_body(request, official=False)
    )


def assert_tail_kept(compacted: list[Message], kept: list[Message]) -> None:
    """What stays is the tail of the original, untouched (a kept request gains the summary)."""
    if kept[0].role == "user":
        assert compacted[0].content[1:] == kept[0].content and compacted[1:] == kept[1:]
    else:
        assert len(compacted[0].content) == 1 and compacted[1:] == kept


@pytest.mark.parametrize("name", list(conversations()))
def test_compact_at_any_index_refuses_or_stays_valid(name: str) -> None:
    original = conversations()[name]
    assert problems_of(original) == []
    for upto in range(1, len(original)):
        conversation = Conversation(list(original))
        try:
            conversation.compact(upto, "the summary")
        except ValueError:
            continue
        assert problems_of(conversation.messages) == [], (name, upto)
        assert is_summary(conversation.messages[0])
        assert_tail_kept(conversation.messages, original[upto:])


@pytest.mark.parametrize("name", list(conversations()))
@pytest.mark.parametrize("keep", [1, 2, 3])
def test_compaction_point_is_always_a_valid_cut(name: str, keep: int) -> None:
    original = conversations()[name]
    upto = compaction_point(original, keep)
    assert upto is not None
    conversation = Conversation(list(original))
    conversation.compact(upto, "the summary")
    assert problems_of(conversation.messages) == []
    assert_tail_kept(conversation.messages, original[upto:])


def test_compaction_point_keeps_the_last_turns_verbatim() -> None:
    messages = conversations()["turns with rounds"]
    assert compaction_point(messages, 2) == 8  # "q3" and "q4" stay
    assert compaction_point(messages, 3) == 6
    assert compaction_point(messages, 4) is None  # four turns, and the last has no rounds
    long_turn = conversations()["one long turn"]
    assert compaction_point(long_turn, 2) == 7  # one turn: its last two rounds stay


def test_a_summary_alone_is_not_compacted_again() -> None:
    conversation = Conversation(
        [user_text("q1"), answer("a1"), user_text("q2"), answer("a2"), user_text("q3")]
    )
    conversation.compact(2, "the summary")
    assert compaction_point(conversation.messages, 1) == 2
    assert compaction_point([conversation.messages[0]], 1) is None


def test_compact_refuses_an_empty_summary_and_a_split_pair() -> None:
    messages = conversations()["one long turn"]
    with pytest.raises(ValueError, match="empty"):
        Conversation(list(messages)).compact(1, "  ")
    with pytest.raises(ValueError, match="tool results"):
        Conversation(list(messages)).compact(2, "s")  # result(1) without call(1)
