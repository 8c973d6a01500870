"""List prices per million tokens (input, output) for the session cost in the status bar.

A model not listed shows tokens only: a wrong price is worse than none.
"""

from __future__ import annotations

from agent_tui.providers.base import Usage

_PRICES: dict[str, tuple[float, float]] = {
    "claude-opus-4": (15.0, 75.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-opus-4-5": (5.0, 25.0),
    "claude-sonnet-4": (3.0, 15.0),
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "gpt-4.1": (2.0, 8.0),
    "gpt-4.1-mini": (0.4, 1.6),
    "gpt-4o": (2.5, 10.0),
    "gpt-4o-mini": (0.15, 0.6),
    "gpt-5": (1.25, 10.0),
    "gpt-5-mini": (0.25, 2.0),
}


def cost_usd(model: str, usage: Usage) -> float | None:
    """Cost of ``usage`` on ``model``; the longest listed prefix of the name decides (dated names)."""
    matches = [name for name in _PRICES if model == name or model.startswith(name + "-")]
    if not matches:
        return None
    price_in, price_out = _PRICES[max(matches, key=len)]
    tokens_in = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
    return (tokens_in * price_in + usage.output_tokens * price_out) / 1_000_000


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(
        a.input_tokens + b.input_tokens,
        a.output_tokens + b.output_tokens,
        a.cache_read_tokens + b.cache_read_tokens,
        a.cache_write_tokens + b.cache_write_tokens,
        a.reasoning_tokens + b.reasoning_tokens,
    )
