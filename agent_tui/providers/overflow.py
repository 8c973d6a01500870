"""Recognise a server's "the prompt does not fit in the context" answer, and the sizes it states.

Each server says it its own way (all as HTTP 400):

- OpenAI: ``error.code == "context_length_exceeded"``, "This model's maximum context length is
  8192 tokens. However, your messages resulted in 9000 tokens ...";
- Anthropic: ``invalid_request_error`` "prompt is too long: 208310 tokens > 200000 maximum";
- llama.cpp: ``error.type == "exceed_context_size_error"`` with ``n_prompt_tokens`` and ``n_ctx``,
  "the request exceeds the available context size, try increasing it" (older builds name
  ``n_ctx`` only in the text);
- vLLM: "This model's maximum context length is 4096 tokens. However, you requested 4200 tokens
  (4000 in the messages, 200 in the completion)" (newer: "... and your request has 4000 input
  tokens").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_tui.lazy_regex import lazy_pattern

_ANTHROPIC = lazy_pattern(r"prompt is too long:\s*(\d+)\s*tokens?\s*>\s*(\d+)", re.IGNORECASE)
_MAXIMUM = lazy_pattern(r"maximum context length is\s*(\d+)", re.IGNORECASE)
_N_CTX = lazy_pattern(r"n_ctx\D{0,5}(\d+)", re.IGNORECASE)
_N_PROMPT = lazy_pattern(r"n_prompt_tokens\D{0,5}(\d+)", re.IGNORECASE)
_PHRASES = (
    "context_length_exceeded",
    "context length",
    "context size",
    "context window",
    "prompt is too long",
    "exceed_context_size",
    "n_ctx",
)


@dataclass(frozen=True)
class Overflow:
    """What the server said about the request that did not fit.

    Args:
        limit: the context size in tokens the server states (None when it does not say).
        prompt_tokens: the request's prompt tokens as the server counted them (None: not said).
    """

    limit: int | None
    prompt_tokens: int | None


def _error_object(body: Any) -> dict[str, Any]:
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return error
    return body if isinstance(body, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _prompt_tokens(message: str) -> int | None:
    """The prompt's size in an OpenAI/vLLM message ("resulted in N", "N in the messages")."""
    for pattern in (
        r"(\d+)\s+in the messages",
        r"messages resulted in\s*(\d+)",
        r"request has\s*(\d+)\s*input",
        r"requested\s*(\d+)",
    ):
        match = re.search(pattern, message, re.IGNORECASE)
        if match:
            return int(match.group(1))
    return None


def parse_overflow(status: int, body: Any, message: str) -> Overflow | None:
    """An :class:`Overflow` when the error says the prompt exceeds the context, else None.

    Args:
        status: the HTTP status (servers use 400; 413 is accepted too).
        body: the parsed JSON error body (or None).
        message: the error's human text.
    """
    if status not in (400, 413):
        return None
    error = _error_object(body)
    code = f"{error.get('code') or ''} {error.get('type') or ''}".lower()
    text = message.lower()
    if not any(phrase in f"{code} {text}" for phrase in _PHRASES):
        return None
    if match := _ANTHROPIC().search(message):
        return Overflow(int(match.group(2)), int(match.group(1)))
    n_ctx = _int(error.get("n_ctx"))
    n_prompt = _int(error.get("n_prompt_tokens"))
    if n_ctx is None and (match := _N_CTX().search(message)):
        n_ctx = int(match.group(1))
    if n_prompt is None and (match := _N_PROMPT().search(message)):
        n_prompt = int(match.group(1))
    if n_ctx is not None or n_prompt is not None:
        return Overflow(n_ctx, n_prompt)
    if match := _MAXIMUM().search(message):
        return Overflow(int(match.group(1)), _prompt_tokens(message))
    return Overflow(None, None)
