"""Requests beside the model's own: asking a server its context window, counting tokens.

They go out as the provider's requests do: through the small HTTP/1.1 client where it suits (no
httpx import, ~45 ms, on the way to the first request), through httpx when a proxy or a
user:password in the URL needs it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agent_tui.providers import http11
from agent_tui.providers.api import import_httpx

# fetch(method, url, body=None) -> (HTTP status, body bytes)
Fetch = Callable[..., Awaitable[tuple[int, bytes]]]


class SideRequestFailed(Exception):
    """No answer: the connection failed or broke, or ``timeout`` passed."""


def server_root(base_url: str) -> str:
    """An OpenAI-style base URL without its ``/v1``: where llama.cpp, LM Studio and Ollama
    serve their own endpoints."""
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


@contextlib.asynccontextmanager
async def side_requests(
    base_url: str, headers: dict[str, str], timeout: float
) -> AsyncIterator[Fetch]:
    """``fetch(method, url, body=None)`` for the block, over one client (a kept-alive
    connection); ``body`` goes as JSON. Each request has ``timeout`` seconds in all.

    Raises (from fetch):
        SideRequestFailed: no answer.
    """
    if http11.suits(base_url):
        client = http11.Client(timeout_s=timeout, connect_timeout_s=timeout, headers=headers)

        async def fetch(method: str, url: str, body: Any = None) -> tuple[int, bytes]:
            try:
                async with asyncio.timeout(timeout):
                    async with client.stream(method, url, body, {}) as response:
                        return response.status_code, await response.aread()
            except (http11.TransportError, TimeoutError, OSError) as exc:
                raise SideRequestFailed(f"{method} {url}: {type(exc).__name__} {exc}") from None

        try:
            yield fetch
        finally:
            await client.aclose()
        return
    httpx = import_httpx()
    async with httpx.AsyncClient(timeout=timeout, headers=headers) as session:

        async def fetch_httpx(method: str, url: str, body: Any = None) -> tuple[int, bytes]:
            try:
                async with asyncio.timeout(timeout):
                    response = await session.request(method, url, json=body)
                    return response.status_code, response.content
            except (httpx.HTTPError, TimeoutError) as exc:
                raise SideRequestFailed(f"{method} {url}: {type(exc).__name__} {exc}") from None

        yield fetch_httpx
