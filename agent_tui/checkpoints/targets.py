"""Which turns /undo and /rewind act on, and the prompts /rewind offers."""

from __future__ import annotations

from typing import Any

from agent_tui.checkpoints.recorder import Checkpoints
from agent_tui.checkpoints.store import TurnRecord
from agent_tui.conversation import Message, TextBlock


def checkpoints_of(agent: Any) -> Checkpoints | None:
    found = getattr(agent.deps, "checkpoints", None)
    return found if isinstance(found, Checkpoints) else None


def undo_targets(agent: Any) -> list[TurnRecord]:
    """The turn /undo reverts: this conversation's newest turn with changes left to undo.

    With no conversation loaded (a fresh ``agent-tui -p "/undo"``, or the app before its first
    prompt) it is the newest such turn recorded in this workspace by any run.
    """
    checkpoints = checkpoints_of(agent)
    if checkpoints is None:
        return []
    pending = [r for r in checkpoints.records() if not r.undone]
    if not pending and not agent.conversation.messages:
        pending = [r for r in checkpoints.workspace_records() if not r.undone]
    return pending[-1:]


def rewind_targets(agent: Any, index: int) -> list[TurnRecord]:
    """This conversation's turns from the prompt at ``index`` onward, newest first."""
    checkpoints = checkpoints_of(agent)
    if checkpoints is None:
        return []
    found = [r for r in checkpoints.records() if r.turn >= index and not r.undone]
    return sorted(found, key=lambda r: r.created, reverse=True)


def turns_named(records: list[TurnRecord]) -> tuple[int, ...]:
    """The turns of the conversation ``records`` belong to, by their prompt's index, as
    ``CheckpointRestored.turns`` names them: a turn /rewind cut is not named (its index may be a
    later turn's now); its files are still put back."""
    return tuple(r.turn for r in records if not r.rewound)


def typed_text(message: Message) -> str:
    # A request stores its attachments first and the typed text last (agent/prompt.py).
    texts = [b.text for b in message.content if isinstance(b, TextBlock)]
    return texts[-1] if texts else ""


def prompts(agent: Any) -> list[tuple[int, str]]:
    """The user prompts of the conversation as (message index, text typed), oldest first."""
    checkpoints = checkpoints_of(agent)
    typed = checkpoints.prompts if checkpoints is not None else {}
    found: list[tuple[int, str]] = []
    for index, message in enumerate(agent.conversation.messages):
        if message.role != "user":
            continue
        text = typed_text(message)
        if not text:  # only tool results: not a prompt
            continue
        found.append((index, typed.get(index, text)))
    return found
