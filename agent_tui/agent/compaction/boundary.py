"""Where a compaction may cut the conversation: the first message it keeps.

A cut lands where the conversation stays valid for both APIs once the older part becomes one
summary message: at the start of a user turn, or, inside one long turn (a long ``-p`` run), at an
assistant message right after the tool results of the round before. A call and its result are
never separated.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.conversation import Message, is_summary


def _round_starts(messages: Sequence[Message], begin: int) -> list[int]:
    """Assistant messages after ``begin`` that follow a tool-result message (a new round)."""
    return [
        i
        for i in range(begin + 1, len(messages))
        if messages[i].role == "assistant"
        and messages[i - 1].role == "user"
        and messages[i - 1].carries_results
    ]


def compaction_point(messages: Sequence[Message], keep: int) -> int | None:
    """The index of the first message to keep, or None when there is nothing worth replacing.

    The last ``keep`` user turns stay verbatim. When the conversation has no more turns than
    that, the last turn's last ``keep`` rounds stay and its earlier rounds are replaced.

    Args:
        messages: the conversation.
        keep: user turns (or, in one long turn, rounds) kept verbatim; at least 1.
    """
    keep = max(keep, 1)
    turns = [i for i, m in enumerate(messages) if m.starts_turn]
    if len(turns) > keep:
        upto = turns[-keep]
    else:
        rounds = _round_starts(messages, turns[-1] if turns else 0)
        if len(rounds) <= keep:
            return None
        upto = rounds[-keep]
    if upto <= 0 or (upto == 1 and is_summary(messages[0])):
        return None  # nothing before the cut, or only the summary of an earlier compaction
    return upto
