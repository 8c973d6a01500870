"""A round's request: built from the conversation within the budget (counted by the server's own
tokenizer near the limit), and made into the provider's ``ProviderRequest``.

Split from ``loop.py`` (the Agent's rounds); these read the agent's model, budget and deps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.agent.exact_count import near_limit
from agent_tui.agent.prompt import BuiltPrompt
from agent_tui.agent.stable_prefix import after_the_tools
from agent_tui.errors import ContextOverflow, UsageError
from agent_tui.providers.base import ProviderRequest, ToolSpec
from agent_tui.providers.web_search import search_uses

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.agent.turn import TurnPlan


@dataclass
class Attempt:
    """How often a round's request was built again."""

    overflow: ContextOverflow | None = None  # the server's "too long", once retried
    recounts: int = 0  # built again because the server counted it over the budget


async def fit(
    agent: Agent, plan: TurnPlan, specs: list[ToolSpec], tools_chars: int, attempt: Attempt
) -> BuiltPrompt | None:
    """The request as the conversation is now, within the budget; None: build it again."""
    # Every request is built from the conversation as it is now: nothing else holds
    # "what was said", so a request can neither miss nor repeat part of it.
    model, budget = agent.model, agent.budget
    try:
        built = budget.build(
            model, plan.system_prompt, list(agent.conversation.messages), tools_chars
        )
    except UsageError as exc:
        overflow = attempt.overflow
        if overflow is None:
            raise
        raise ContextOverflow(
            f"{overflow}; {exc}",
            status=overflow.status or 400,
            limit=overflow.limit,
            prompt_tokens=overflow.prompt_tokens,
        ) from None
    if attempt.recounts < 2 and (exact := await _exact_tokens(agent, built, specs)) is not None:
        budget.calibrate(model, built, exact)
        if exact > budget.prompt_limit(model):
            attempt.recounts += 1
            return None
    return built


def provider_request(agent: Agent, built: BuiltPrompt, specs: list[ToolSpec]) -> ProviderRequest:
    model = agent.model
    local = agent.budget.local_server(model)  # low temperature for tool use
    system, messages = built.system, built.messages
    if local:  # the same prefix for every folder and turn: the server's cache keeps hitting
        system, messages = after_the_tools(system, messages)
    return ProviderRequest(
        model=model.name,
        system=system,
        messages=messages,
        tools=specs,
        max_tokens=agent.budget.reply_tokens(model),
        temperature=model.sampling_temperature(local),
        thinking_budget=model.thinking_budget,
        reasoning_effort=model.reasoning_effort,
        web_search_uses=search_uses(agent.deps.config.section("web"), agent.deps.provider),
    )


async def _exact_tokens(agent: Agent, built: BuiltPrompt, specs: list[ToolSpec]) -> int | None:
    """The server's own count of ``built`` when the estimate puts it near the limit."""
    model, budget = agent.model, agent.budget
    if not near_limit(budget.scaled(model, built), budget.prompt_limit(model)):
        return None
    found = agent.window_discovery.found.get(model.name)
    request = provider_request(agent, built, specs)
    return await agent.exact_counter.count(
        model, agent.deps.provider, request, found[1] if found else None
    )


def still_too_long(agent: Agent, exc: ContextOverflow) -> ContextOverflow:
    """The error after the one retry: what the server said and what to set."""
    window = agent.budget.window(agent.model)
    return ContextOverflow(
        f"{exc}; pruned to {window:,} tokens and sent again, still too long: set "
        f"model.context_window (now {agent.model.context_window or 'not set'}) to the "
        "server's context size, or lower model.max_tokens",
        status=exc.status or 400,
        limit=exc.limit,
        prompt_tokens=exc.prompt_tokens,
    )
