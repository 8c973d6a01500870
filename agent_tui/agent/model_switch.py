"""``/model``: which model a name means, and the context window the session switches to.

A configured alias (``[models.<alias>]``, ``default`` for the model the session started with)
wins; any other name is a model of the running provider: the same endpoint and key, its own
window (the server's answer, the published size, else the default — the running model's
``context_window`` was set for that model, not this one).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.config import ModelConfig, model_choices
from agent_tui.errors import UsageError

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent


@dataclass(frozen=True)
class ContextSize:
    """What the context meter measures against after a switch."""

    window: int  # the model's window
    limit: int  # what a request may hold: the window less the reply's share (the meter's 100 %)


def resolve_model(agent: Agent, name: str) -> tuple[str, ModelConfig]:
    """``(label, model)`` for ``/model NAME``: the alias's model, or ``NAME`` on the running
    provider (label "" then).

    Raises:
        UsageError: the name is empty or not one word of printable characters.
    """
    name = name.strip()
    if not name or not name.isprintable() or any(c.isspace() for c in name):
        raise UsageError(f"/model takes one model name or alias (got {name!r})")
    choices = model_choices(agent.deps.config)
    if name in choices:
        return name, choices[name]
    return "", dataclasses.replace(agent.model, name=name, context_window=None)


async def context_size(agent: Agent) -> ContextSize:
    """The running model's window, the server asked first when it says its own (bounded by the
    probe's short timeout), as the next request will be budgeted."""
    model = agent.model
    if (served := await agent.window_discovery.wait(model)) is not None:
        agent.budget.served[model.name] = served[0]
    return ContextSize(agent.budget.window(model), agent.budget.prompt_limit(model))
