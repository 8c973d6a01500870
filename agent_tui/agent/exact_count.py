"""Exact token counts from the server's tokenizer, asked only near the limit (``count_tokens``).

The chars/4 estimate (calibrated by ``agent/budget.py``) decides every request. Only when it puts
the request within :data:`NEAR_LIMIT` of the prompt budget, where a wrong estimate costs a refused
request and a retry, the server is asked to count (``providers/token_count.py``): llama.cpp when
the window came from its ``/props``, Anthropic's ``count_tokens`` for the anthropic provider. Far
from the limit nothing is asked, so the common path pays nothing.

An exact count calibrates the estimate (``ContextBudget.calibrate``); when it is over the budget
the caller builds the request again, now pruned or compacted to fit. Counts are cached per model
and request hash; an endpoint that failed once is not asked again in the session.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from agent_tui.config import ModelConfig
from agent_tui.providers.base import Provider, ProviderRequest

logger = logging.getLogger(__name__)

NEAR_LIMIT = 0.85  # ask when the estimate is over 85% of the prompt budget
MAX_CACHED = 64


def count_method(model: ModelConfig, window_source: str | None) -> str | None:
    """Which counting endpoint the server of ``model`` offers: "llamacpp", "anthropic" or None."""
    if model.count_tokens == "off":
        return None
    if model.provider == "anthropic":
        return "anthropic"
    if model.provider == "openai" and (window_source or "").startswith("llama.cpp"):
        return "llamacpp"
    return None


def near_limit(estimate: int, limit: int) -> bool:
    """Whether a request of ``estimate`` tokens is close enough to ``limit`` to be counted."""
    return limit > 0 and estimate >= NEAR_LIMIT * limit


@dataclass
class ExactCounter:
    """The exact counts of one session: a small cache and the endpoints that failed."""

    cache: dict[str, int] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    asked: int = 0  # requests made to a counting endpoint (tests and the benchmark read it)

    async def count(
        self,
        model: ModelConfig,
        provider: Provider,
        request: ProviderRequest,
        window_source: str | None,
    ) -> int | None:
        """The server's count of ``request``'s prompt, or None (not offered, failed: estimate).

        ``provider`` must build wire bodies (an HTTP provider); any other gets None.
        """
        method = count_method(model, window_source)
        build_body = getattr(provider, "build_body", None)
        auth_headers = getattr(provider, "auth_headers", None)
        endpoint = f"{method} {model.base_url}"
        if method is None or build_body is None or auth_headers is None or endpoint in self.failed:
            return None
        body: dict[str, Any] = build_body(request)
        from agent_tui.providers import token_count as tc

        payload: Any = tc.chat_text(body) if method == "llamacpp" else tc.anthropic_count_body(body)
        import hashlib  # here: only a count needs it (~2 ms of every start at the top)

        digest = hashlib.sha256(
            json.dumps([model.name, payload], sort_keys=True).encode()
        ).hexdigest()
        if digest in self.cache:
            return self.cache[digest]
        headers: dict[str, str] = auth_headers(model.api_key())
        self.asked += 1
        try:
            if method == "llamacpp":
                counted = await tc.count_llamacpp(model.base_url, payload, headers)
            else:
                counted = await tc.count_anthropic(model.base_url, payload, headers)
        except tc.CountFailed as exc:
            # The estimate stays in charge; not asking again keeps the failure to one round trip.
            logger.debug("exact token count unavailable, using the estimate: %s", exc)
            self.failed.add(endpoint)
            return None
        if len(self.cache) >= MAX_CACHED:
            self.cache.pop(next(iter(self.cache)))
        self.cache[digest] = counted
        return counted
