"""What the session has spent, and the ``[agent] max_cost`` budget checked before each request.

Tokens come from the usage the server reports with each answer (``Agent.total_usage`` for the
session, its earlier runs included: ``agent/totals.py``; ``Agent.last_turn_usage`` for the last
model turn); money from the list prices of ``agent/pricing.py``, each model's part at its own
price, so only when every model the session used is listed there (a wrong price is worse than
none). The lines the session's edits added and removed come with them.

``check_budget`` runs before a request is sent: the money the session spent so far (every run of
it) plus the request's prompt at the input price (its estimate, calibrated by reported usage)
must stay within ``max_cost``, else the turn stops with ``CostLimitReached`` (exit 4 under ``-p``). The reply's tokens are not
known in advance, so a budget can be passed by at most one answer's output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui.agent.pricing import cost_usd
from agent_tui.errors import CostLimitReached
from agent_tui.providers.base import Usage

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

MAX_COST_HINT = "raise it with --max-cost or [agent] max_cost"
UNPRICED_SHOWN = "max_cost_unpriced_shown"  # in SessionState.extras: the notice is given once


@dataclass(frozen=True)
class Spending:
    """Tokens and money of the session (every run of it) and of its last model turn (money None:
    no known price), and the lines its edits added and removed."""

    model: str
    session: Usage
    turn: Usage
    session_usd: float | None
    turn_usd: float | None
    max_cost: float | None
    lines_added: int = 0
    lines_removed: int = 0

    def to_json(self) -> dict[str, Any]:
        """The figures for ``-p --output-format json`` and a command's ``data``."""
        return {
            "model": self.model,
            "session": usage_json(self.session),
            "turn": usage_json(self.turn),
            "session_cost_usd": self.session_usd,
            "turn_cost_usd": self.turn_usd,
            "max_cost_usd": self.max_cost,
            "lines_added": self.lines_added,
            "lines_removed": self.lines_removed,
        }


def usage_json(usage: Usage) -> dict[str, int]:
    return {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
        "reasoning_tokens": usage.reasoning_tokens,
    }


def max_cost(agent: Agent) -> float | None:
    """``[agent] max_cost`` (``--max-cost``) in US dollars, or None when not set."""
    value = agent.deps.config.section("agent", "max_cost")
    return float(value) if value is not None else None


def spending(agent: Agent) -> Spending:
    name = agent.model.name
    totals = agent.totals
    return Spending(
        name,
        totals.spent.usage,
        agent.last_turn_usage,
        totals.spent.usd(),
        cost_usd(name, agent.last_turn_usage),
        max_cost(agent),
        totals.lines.added,
        totals.lines.removed,
    )


def check_budget(agent: Agent, prompt_tokens: int) -> str | None:
    """Stop before a request that would pass ``max_cost``.

    Args:
        agent: the session (its usage so far, model and config).
        prompt_tokens: the estimate of the request about to be sent.

    Returns:
        A notice, the first time, when a budget is set but the model has no known price (it
        cannot be kept), else None.

    Raises:
        CostLimitReached: the money spent plus this request's prompt would pass the budget.
    """
    budget = max_cost(agent)
    if budget is None:
        return None
    name = agent.model.name
    spent = agent.totals.spent.usd()
    prompt = cost_usd(name, Usage(input_tokens=prompt_tokens))
    if spent is None or prompt is None:
        extras = agent.deps.session.extras
        if extras.get(UNPRICED_SHOWN) == name:
            return None
        extras[UNPRICED_SHOWN] = name
        unpriced = name if prompt is None else "a model this session used"
        return f"max_cost ${budget:g} is not enforced: no price is known for {unpriced}"
    if spent + prompt > budget:
        raise CostLimitReached(
            f"stopped before the next request: ${spent:.4f} spent in this session, and its prompt "
            f"(about {prompt_tokens:,} tokens, ${prompt:.4f}) would pass max_cost "
            f"${budget:g}; {MAX_COST_HINT}"
        )
    return None
