"""When and how long to wait before trying a model request again.

Retried: 408, 409, 429, 5xx and Anthropic's 529 (overloaded), and connections that fail before
any of the response arrived. The wait is exponential with jitter, unless the server sent
``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), which is honoured up to a cap.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

RETRYABLE_STATUS = frozenset({408, 409, 429})
# A local server loading its model (llama.cpp: 503 "Loading model") is waited for apart from the
# retries: a cold load from a slow disk takes minutes. Esc stops the wait sooner.
LOAD_WAIT_S = 900.0
LOAD_POLL_S = 2.0


def is_loading(status: int, text: str | bytes) -> bool:
    """A server's "not yet: the model is loading" (llama.cpp: 503 ``Loading model``), from its
    status and its error text or body."""
    head = text[:2000].lower()
    return status == 503 and (b"loading" in head if isinstance(head, bytes) else "loading" in head)


def is_retryable_status(status: int) -> bool:
    """Whether a failed request with this HTTP status may succeed if sent again."""
    return status in RETRYABLE_STATUS or status >= 500


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """The server's requested wait in seconds, or None when it named none (or nonsense)."""
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    import email.utils  # rare (HTTP-date form): not worth 4 ms at every start

    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class RetryPolicy:
    """How a provider retries.

    Args:
        max_retries: retries after the first attempt (``model.max_retries``).
        base_delay: the first backoff in seconds; doubled each retry.
        max_delay: the longest backoff.
        retry_after_cap: the longest wait a server's retry-after can impose.
        sleep: how to wait (tests pass a recorder to check the delays without waiting).
    """

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 8.0
    retry_after_cap: float = 60.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after is not None:
            return min(retry_after, self.retry_after_cap)
        backoff: float = min(self.max_delay, self.base_delay * 2.0**attempt)
        # Jitter spreads clients that failed together so they do not retry together.
        import random  # here: only a retry needs it (~1 ms of every start at the top)

        return backoff * (1 - 0.25 * random.random())
