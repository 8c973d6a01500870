"""The search engines the ``web_search`` function tool can ask, from ``[web]`` in the config.

``search = "searxng"``: a SearXNG instance (``searxng_url``; ``/search?format=json&q=…``, no key).
``search = "brave"``: the Brave Search API (``brave_url``, the key in the environment variable
``api_key_env`` names, sent as ``X-Subscription-Token``; never written to the config or a session).
``search = "provider"`` is the model provider's own server-side search (providers/web_search.py),
not this tool. What a backend returns is hostile web text: ``results`` keeps http(s) URLs only and
makes every field one visible, capped line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from agent_tui.config import Config
from agent_tui.errors import ToolError
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.text_safety import one_line

BRAVE_URL = "https://api.search.brave.com/res/v1/web/search"
DEFAULT_KEY_ENV = "BRAVE_API_KEY"
BACKENDS = ("searxng", "brave")
DEFAULT_COUNT = 8
TITLE_CHARS = 200
SNIPPET_CHARS = 400
URL_CHARS = 500

_TAG = lazy_pattern(r"<[^>]{0,200}>")


@dataclass(frozen=True)
class Backend:
    """One configured search engine: what to GET, with which headers, and how to read it."""

    kind: str  # "searxng" | "brave"
    base_url: str
    key_env: str = ""

    def request_url(self, query: str, count: int) -> str:
        """The GET URL for ``query`` (what the approval rules see; the key is never in it)."""
        if self.kind == "brave":
            return f"{self.base_url}?{urlencode({'q': query, 'count': count})}"
        return f"{self.base_url.rstrip('/')}/search?{urlencode({'q': query, 'format': 'json'})}"

    def headers(self) -> dict[str, str]:
        """Request headers; Brave's key read from the environment at the moment of the call.

        Raises:
            ToolError: the key's variable is not set.
        """
        if self.kind != "brave":
            return {"Accept": "application/json"}
        key = os.environ.get(self.key_env, "")
        if not key:
            raise ToolError(
                f"web_search: the Brave key variable {self.key_env} is not set; "
                "tell the user to export it, or answer without searching."
            )
        return {"Accept": "application/json", "X-Subscription-Token": key}

    def raw_results(self, payload: Any) -> list[Any]:
        """The list of result objects in a response body (empty when it has none)."""
        if not isinstance(payload, dict):
            return []
        if self.kind == "brave":
            web = payload.get("web")
            found = web.get("results") if isinstance(web, dict) else None
        else:
            found = payload.get("results")
        return found if isinstance(found, list) else []


def backend_from_config(config: Config | None) -> Backend | None:
    """The configured function-tool backend, or None (``[web] search`` off, "provider", unset)."""
    web = config.section("web") if config is not None else None
    if not isinstance(web, dict) or web.get("search") not in BACKENDS:
        return None
    if web["search"] == "brave":
        url = str(web.get("brave_url") or BRAVE_URL)
        return Backend("brave", url, str(web.get("api_key_env") or DEFAULT_KEY_ENV))
    searxng = web.get("searxng_url")
    return Backend("searxng", searxng) if isinstance(searxng, str) and searxng else None


def max_results(config: Config | None) -> int:
    value = config.section("web", "max_results") if config is not None else None
    return value if isinstance(value, int) and value > 0 else DEFAULT_COUNT


@dataclass(frozen=True)
class SearchResult:
    """One web search hit: title, URL and snippet."""

    title: str
    url: str
    snippet: str


def clean(text: Any, limit: int) -> str:
    """One visible line of web text: tags dropped, entities decoded, controls shown, capped."""
    import html  # ~1 ms with its entity table: only once a search has run (build reads this)

    if not isinstance(text, str):
        return ""
    line = one_line(" ".join(html.unescape(_TAG().sub("", text)).split()))
    return line if len(line) <= limit else line[: limit - 1] + "…"


def results(backend: Backend, payload: Any, count: int) -> list[SearchResult]:
    """Up to ``count`` results with an http(s) URL, each field cleaned."""
    found = []
    for item in backend.raw_results(payload):
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme.lower() not in ("http", "https"):
            continue  # javascript:, data:, file: … are not sources
        snippet = item.get("description" if backend.kind == "brave" else "content")
        found.append(
            SearchResult(
                clean(item.get("title"), TITLE_CHARS) or "(no title)",
                clean(url, URL_CHARS),
                clean(snippet, SNIPPET_CHARS),
            )
        )
        if len(found) == count:
            break
    return found
