"""Ask the server to count a request's tokens with the model's own tokenizer.

Two servers offer it:

- llama.cpp: ``POST {root}/tokenize`` with ``{"content": text}`` -> ``{"tokens": [...]}``. It
  tokenizes plain text, not a chat, so the text sent is what the chat template would render
  (:func:`chat_text`): each message's strings and the tool schemas, without JSON punctuation.
- Anthropic: ``POST {base_url}/v1/messages/count_tokens`` with the Messages body minus the keys
  that only shape the reply (``max_tokens``, ``stream``, ``temperature``...) ->
  ``{"input_tokens": N}`` (https://docs.anthropic.com/en/api/messages-count-tokens).

A count is one extra request, so each has a short timeout and any failure (a server without the
endpoint, a timeout, an odd answer) returns None: the caller keeps its estimate.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from agent_tui.providers.side_requests import SideRequestFailed, server_root, side_requests

logger = logging.getLogger(__name__)

COUNT_TIMEOUT_S = 1.5
# The keys a count_tokens body accepts (the rest of a Messages body only shapes the reply).
ANTHROPIC_COUNT_KEYS = ("model", "messages", "system", "tools", "tool_choice", "thinking")
# Strings in a chat body that are structure, not text the model reads.
_NOT_TEXT = frozenset({"role", "type", "id", "tool_call_id", "image_url", "url", "detail"})
MAX_TOKENS_ANSWER = 100_000_000


class CountFailed(Exception):
    """The server did not count (no such endpoint, an error, a timeout, an odd answer)."""


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _NOT_TEXT:
                _strings(item, out)


def chat_text(body: dict[str, Any]) -> str:
    """The text of an OpenAI chat body as a template renders it: message strings, tool schemas."""
    parts: list[str] = []
    # Chat Completions: "messages"; the Responses format (wire_api = "responses"): these two.
    for key in ("instructions", "messages", "input"):
        _strings(body.get(key), parts)
    tools = body.get("tools")
    if tools:
        parts.append(json.dumps(tools, separators=(",", ":")))
    return "\n".join(parts)


def anthropic_count_body(body: dict[str, Any]) -> dict[str, Any]:
    """A Messages request body reduced to what ``count_tokens`` takes."""
    return {key: body[key] for key in ANTHROPIC_COUNT_KEYS if key in body}


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_TOKENS_ANSWER:
        raise CountFailed(f"not a token count: {str(value)[:80]!r}")
    return value


async def _post(url: str, body: dict[str, Any], headers: dict[str, str], timeout: float) -> Any:
    async with side_requests(url, headers, timeout) as fetch:
        try:
            status, raw = await fetch("POST", url, body)
        except SideRequestFailed as exc:
            raise CountFailed(str(exc)) from None
    return _json_answer(url, status, raw)


def _json_answer(url: str, status: int, raw: bytes) -> Any:
    if status != 200:
        raise CountFailed(f"POST {url}: HTTP {status}")
    try:
        return json.loads(raw)
    except ValueError:
        raise CountFailed(f"POST {url}: not JSON") from None


async def count_llamacpp(
    base_url: str, text: str, headers: dict[str, str], timeout: float = COUNT_TIMEOUT_S
) -> int:
    """The tokens llama.cpp's tokenizer makes of ``text``.

    Raises:
        CountFailed: no count came back.
    """
    answer = await _post(f"{server_root(base_url)}/tokenize", {"content": text}, headers, timeout)
    tokens = answer.get("tokens") if isinstance(answer, dict) else None
    if not isinstance(tokens, list):
        raise CountFailed("llama.cpp /tokenize: no tokens list")
    return _count(len(tokens))


async def count_anthropic(
    base_url: str, body: dict[str, Any], headers: dict[str, str], timeout: float = COUNT_TIMEOUT_S
) -> int:
    """The input tokens Anthropic counts for the Messages request ``body``.

    Raises:
        CountFailed: no count came back.
    """
    url = f"{base_url.rstrip('/')}/v1/messages/count_tokens"
    answer = await _post(url, anthropic_count_body(body), headers, timeout)
    return _count(answer.get("input_tokens") if isinstance(answer, dict) else None)
