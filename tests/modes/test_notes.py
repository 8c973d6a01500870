"""The plan-mode note: it now says read-only commands run; a session saved with the earlier
wording is still read as told plan mode (so the note is not sent again on resume)."""

from __future__ import annotations

from agent_tui.conversation import Conversation, Message, TextBlock
from agent_tui.modes import Mode
from agent_tui.modes.notes import PLAN_ON, last_told, note_for

EARLIER = PLAN_ON.replace(
    "need (read-only commands such as ls, cat, grep, git status, git diff and git log run too); "
    "do not edit files or run other commands:",
    "need; do not edit files or run commands:",
)


def _told(text: str) -> Conversation:
    conversation = Conversation()
    conversation.append(Message("user", [TextBlock(text), TextBlock("plan it")]))
    return conversation


def test_the_note_names_the_read_only_commands() -> None:
    assert "git status" in PLAN_ON and EARLIER != PLAN_ON


def test_a_session_told_the_earlier_note_is_in_plan_mode() -> None:
    assert last_told(_told(EARLIER)) is Mode.PLAN
    assert note_for(_told(EARLIER), Mode.PLAN) is None
