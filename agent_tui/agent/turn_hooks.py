"""The turn's hook events: UserPromptSubmit before the prompt goes in, Stop when the model is done.

Kept out of the loop so the loop only asks "blocked? what context?" and "go on?".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.hooks.agent_hooks import drain_notifications, fire, hook_set, remember_session
from agent_tui.hooks.runner import describe

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

logger = logging.getLogger(__name__)
_NOTICES_SHOWN = "hook_notices_shown"  # SessionState.extras: the load notices were shown once
_STARTED = "hook_session_started"  # SessionState.extras: SessionStart ran (SessionEnd then runs)


@dataclass
class PromptHooks:
    """What UserPromptSubmit said: events to show, a block (shown to the user), added context."""

    events: list[ev.Event] = field(default_factory=list)
    blocked: str | None = None
    context: str = ""


def _session(agent: Agent) -> None:
    recorder = agent.recorder
    if recorder is not None:
        remember_session(agent.deps, recorder.session_id, recorder.writer.path)


async def prompt_submitted(agent: Agent, prompt: str) -> PromptHooks:
    """Run UserPromptSubmit; exit 2 or ``decision: "block"`` keeps the prompt from the model."""
    _session(agent)
    found = PromptHooks()
    loaded = hook_set(agent.deps)
    extras = agent.deps.session.extras
    if extras.get(_NOTICES_SHOWN) is not loaded:
        extras[_NOTICES_SHOWN] = loaded
        found.events += [ev.Notice(text, "warning") for text in loaded.notices]
    context: list[str] = []
    if not extras.get(_STARTED):  # SessionStart: before the session's first prompt
        extras[_STARTED] = True
        source = "resume" if agent.conversation.messages else "startup"
        started = await fire(agent.deps, "SessionStart", {"source": source}, tool=source)
        found.events += [ev.Notice(text, "warning") for text in started.errors]
        context += started.context
    outcome = await fire(agent.deps, "UserPromptSubmit", {"prompt": prompt})
    found.events += [ev.Notice(text, "warning") for text in outcome.errors]
    if outcome.blocked or outcome.stop is not None:
        by = describe(outcome.decider) if outcome.decider else "a hook"
        found.blocked = f"prompt blocked by {by}: {outcome.stop or outcome.reason}"
        return found
    found.context = "\n\n".join(context + outcome.context)
    return found


async def stop_requested(agent: Agent, already: bool) -> tuple[list[ev.Event], str | None]:
    """Run Stop; returns the notices and the reason to go on (exit 2 / ``decision: "block"``).

    ``already``: a Stop hook already kept this turn going (``stop_hook_active``), so a hook can
    tell and let it end.
    """
    outcome = await fire(agent.deps, "Stop", {"stop_hook_active": already})
    notices: list[ev.Event] = [ev.Notice(text, "warning") for text in outcome.errors]
    if outcome.blocked and outcome.stop is None:
        return notices, outcome.reason
    return notices, None


async def session_ended(agent: Agent, reason: str = "other") -> None:
    """Run SessionEnd when the session closes, if SessionStart ran (its errors only go to the log)."""
    await drain_notifications()
    if agent.deps.session.extras.get(_STARTED):
        outcome = await fire(agent.deps, "SessionEnd", {"reason": reason})
        for text in outcome.errors:
            logger.warning("%s", text)
