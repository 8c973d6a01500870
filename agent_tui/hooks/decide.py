"""A PreToolUse hook's say in the approval, as Claude Code orders it.

A hook's deny (or exit 2) refuses the call whatever else allows it; a deny rule still refuses a
call a hook allows ("allow skips the prompt, not a deny rule"); a hook's ``ask`` asks even when a
rule or setting would allow; a hook's ``allow`` skips the question. The hook that decided is the
approval's deciding step, shown on the card ("denied by hook `…` in .claude/settings.json").
"""

from __future__ import annotations

from agent_tui.approvals.types import Verdict
from agent_tui.hooks.runner import HookOutcome, describe


def hook_verdict(outcome: HookOutcome, verdict: Verdict) -> tuple[Verdict, str | None]:
    """The verdict after the hooks, and the model's message when the hooks refused the call."""
    decider = describe(outcome.decider) if outcome.decider is not None else "a hook"
    if outcome.blocked or outcome.permission == "deny":
        reason = (outcome.reason if outcome.blocked else outcome.permission_reason).strip()
        step = Verdict("deny", "hook", f"denied by {decider}" + (f": {reason}" if reason else ""))
        text = f"This call was blocked by a PreToolUse hook: {reason or 'no reason given'}"
        return step, text + " Do not retry the same call; change your approach."
    if verdict.action == "deny":
        return verdict, None  # handled by the caller as before
    why = f": {outcome.permission_reason}" if outcome.permission_reason else ""
    if outcome.permission == "ask":
        return Verdict("ask", "hook", f"asked by {decider}{why}"), None
    if outcome.permission == "allow":
        return Verdict("allow", "hook", f"allowed by {decider}{why}"), None
    return verdict, None
