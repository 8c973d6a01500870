"""Values the approval engine, the loop and the UIs exchange (no I/O here)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

# Grants the sandbox's questions store (agent_tui/sandbox/escalate.py), listed and revoked like
# any tool's: a domain commands may reach through its proxy, a command that may run outside it.
NETWORK_GRANT = "sandbox.network"
OUTSIDE_GRANT = "sandbox.outside"


class Scope(StrEnum):
    ONCE = "once"
    SESSION = "session"
    WORKSPACE = "workspace"
    ALWAYS = "always"


@dataclass(frozen=True)
class Verdict:
    """What the policy decided before asking anyone.

    Args:
        action: ``allow`` runs the call, ``ask`` needs a Decision from the user, ``deny`` refuses.
        step: the decision-order step that decided (``disabled``, ``read_only``, ``deny_rule``,
            ``not_eligible``, ``grant``, ``setting``, ``flag`` for --yolo/--allow-tool, ``mode``
            for plan and accept-edits mode, ``default``).
        reason: a sentence for the tool card and stream-json, e.g. "allowed: rule `git status` in ~/.agentrc".
        advice: for a deny, what the model should do instead (added to the result it gets; too
            long for the card).
    """

    action: Literal["allow", "ask", "deny"]
    step: str
    reason: str
    advice: str = ""


@dataclass(frozen=True)
class Decision:
    """The user's answer to an approval question (modal, TTY prompt or headless policy).

    Args:
        allow: run the call or not.
        scope: how long an allow lasts (ignored for a deny).
        pattern: what the grant covers: a command prefix for run_in_terminal, a URL origin for
            fetch_webpage, None for the whole tool.
        reason: a deny's reason, sent to the model.
        edited_input: the input the user edited before allowing (validated again by the loop).
        by: who answered, for the tool card: "you", "policy", "--yolo".
    """

    allow: bool
    scope: Scope = Scope.ONCE
    pattern: str | None = None
    reason: str = ""
    edited_input: dict[str, Any] | None = None
    by: str = "you"

    def describe(self) -> str:
        """One line for the tool card: "allowed by you, session `git status`", "denied by policy: …"."""
        if not self.allow:
            return f"denied by {self.by}" + (f": {self.reason}" if self.reason else "")
        # Several patterns (one per sub-command) come one per line.
        what = " " + ", ".join(f"`{p}`" for p in self.pattern.splitlines()) if self.pattern else ""
        return f"allowed by {self.by}, {self.scope.value}{what}"


@dataclass(frozen=True)
class CommandPart:
    """One sub-command of a terminal command line and whether the settings already allow it.

    For the approval dialog, which lists every part of a compound line (``a && b | c``).

    Args:
        text: the sub-command as written.
        allowed_by: what allows it ("rule `git status` in ~/.agentrc", "granted for this session
            (`ls`)"), or "" when nothing does.
        asks_because: a rule set to false that matches it (it always asks), or "".
    """

    text: str
    allowed_by: str = ""
    asks_because: str = ""
