"""Modes: how much the agent may do without asking, switched with Shift+Tab.

``ask``           every call that changes something asks (unless a rule or grant covers it).
``accept-edits``  file edits inside the workspace run without asking for the rest of the session;
                  commands, fetches and edits of protected or outside paths still ask.
``plan``          only read-only tools run; anything else is refused with a reason the model sees,
                  so the model reads, then writes a plan. Accepting the plan brings back the mode
                  plan mode was entered from.

The mode lives on the approval engine (``ApprovalEngine.modes``), which enforces it: what the model
is told (``modes.notes``) only explains what the engine already does.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Mode(StrEnum):
    ASK = "ask"
    ACCEPT_EDITS = "accept-edits"
    PLAN = "plan"

    @property
    def label(self) -> str:
        """How the status bar and the help say it: ``ask``, ``accept edits``, ``plan``."""
        return self.value.replace("-", " ")


CYCLE = (Mode.ASK, Mode.ACCEPT_EDITS, Mode.PLAN)  # Shift+Tab order


@dataclass
class ModeState:
    """The current mode and the one plan mode was entered from (what accepting a plan resumes)."""

    current: Mode = Mode.ASK
    before_plan: Mode = Mode.ASK

    def set(self, mode: Mode) -> None:
        """Switch to ``mode``; entering plan mode remembers where it came from."""
        if mode is Mode.PLAN and self.current is not Mode.PLAN:
            self.before_plan = self.current
        self.current = mode

    def cycle(self) -> Mode:
        """The next mode in Shift+Tab order (ask → accept edits → plan → ask); returns it."""
        self.set(CYCLE[(CYCLE.index(self.current) + 1) % len(CYCLE)])
        return self.current

    def leave_plan(self, mode: Mode | None = None) -> Mode:
        """Accept the plan: back to the mode before it (or ``mode``); returns the new mode."""
        self.set(mode or self.before_plan)
        return self.current
