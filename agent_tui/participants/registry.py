"""The participant registry: ``@name`` routes a turn to a specialist (DESIGN §6)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Participant:
    """A chat participant.

    Args:
        name: without the @ ("workspace"); "" is the default agent.
        description: one line for completion and /help.
        prompt: the participant's system prompt text (added after the base instructions).
        tools: tool names or ``tag:<tag>`` it may use; None = every enabled tool.
        source: built-in | user.
    """

    name: str
    description: str
    prompt: str = ""
    tools: tuple[str, ...] | None = None
    source: str = "built-in"


class ParticipantRegistry:
    def __init__(self) -> None:
        self._participants: dict[str, Participant] = {}

    def register(self, participant: Participant) -> None:
        self._participants[participant.name] = participant

    def get(self, name: str) -> Participant | None:
        return self._participants.get(name)

    def all(self) -> list[Participant]:
        return sorted(self._participants.values(), key=lambda p: p.name)

    def complete(self, prefix: str) -> list[Participant]:
        return [p for p in self.all() if p.name and p.name.startswith(prefix)]
