"""The providers' own web search (``[web] search = "provider"``): tool entries and wire readings.

Anthropic's server tool ``web_search_20250305``
(https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool): the answer holds a
``server_tool_use`` block (the query) and a ``web_search_tool_result`` block (titles, URLs and
encrypted content), and its text blocks carry ``web_search_result_location`` citations. The
Responses API's ``web_search`` tool: a ``web_search_call`` output item (``action.query``, and
``action.sources`` when ``include`` asks for them) and ``url_citation`` annotations on the text.
Shapes checked against both SDKs' types (tests/providers/test_web_search_wire.py). Everything
read here is hostile web text: front ends show it through ``text_safety``.
"""

from __future__ import annotations

from typing import Any

from agent_tui.providers.base import Citation, WebSearch, WebSource

ANTHROPIC_TOOL = "web_search_20250305"
RESPONSES_SOURCES = "web_search_call.action.sources"
MAX_SOURCES = 20


def anthropic_tool(max_uses: int) -> dict[str, Any]:
    return {"type": ANTHROPIC_TOOL, "name": "web_search", "max_uses": max_uses}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def anthropic_search(query: str, result: dict[str, Any]) -> WebSearch:
    """A ``web_search_tool_result`` block (its query from the ``server_tool_use`` before it)."""
    content = result.get("content")
    if isinstance(content, dict):  # web_search_tool_result_error
        return WebSearch(query, error=_text(content.get("error_code")) or "error")
    items = content if isinstance(content, list) else []
    sources = tuple(
        WebSource(_text(item.get("title")), _text(item.get("url")))
        for item in items[:MAX_SOURCES]
        if isinstance(item, dict) and _text(item.get("url"))
    )
    return WebSearch(query, sources)


def anthropic_citation(citation: Any) -> Citation | None:
    """A ``citations_delta``'s citation, when it points at a web search result."""
    if not isinstance(citation, dict) or citation.get("type") != "web_search_result_location":
        return None
    url = _text(citation.get("url"))
    if not url:
        return None
    return Citation(url, _text(citation.get("title")), _text(citation.get("cited_text")))


def responses_search(item: dict[str, Any]) -> WebSearch:
    """A finished ``web_search_call`` item: its search query and sources (URLs only), or what
    page it opened or searched in."""
    action = item.get("action")
    action = action if isinstance(action, dict) else {}
    queries = action.get("queries")
    query = _text(action.get("query")) or (
        ", ".join(q for q in queries if isinstance(q, str)) if isinstance(queries, list) else ""
    )
    if not query and action.get("type") in ("open_page", "find_in_page"):
        query = f"{action['type']}: {_text(action.get('url'))} {_text(action.get('pattern'))}"
    found = action.get("sources")
    found = found if isinstance(found, list) else []
    sources = tuple(
        WebSource("", _text(s.get("url")))
        for s in found[:MAX_SOURCES]
        if isinstance(s, dict) and _text(s.get("url"))
    )
    error = "failed" if item.get("status") == "failed" else ""
    return WebSearch(query.strip(), sources, error)


def responses_citation(annotation: Any) -> Citation | None:
    if not isinstance(annotation, dict) or annotation.get("type") != "url_citation":
        return None
    url = _text(annotation.get("url"))
    return Citation(url, _text(annotation.get("title"))) if url else None


DEFAULT_USES = 5


def search_uses(web: Any, provider: Any) -> int:
    """How many searches a request may make with the provider's own tool: ``[web] max_uses``
    when ``[web] search = "provider"`` and the provider has one (Anthropic, Responses), else 0."""
    if not isinstance(web, dict) or web.get("search") != "provider":
        return 0
    if not getattr(provider, "server_web_search", False):
        return 0
    uses = web.get("max_uses")
    return uses if isinstance(uses, int) and uses > 0 else DEFAULT_USES
