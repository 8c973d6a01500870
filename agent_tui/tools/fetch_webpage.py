"""fetch_webpage (DESIGN §4): http(s) pages as readable text, narrowed to a query.

Every hop of a redirect chain is checked (http(s) only, at most five, and on the same site: a
redirect to another host is reported, not followed, so the model asks for that URL in a call of its
own, which the approval rules see, as Claude Code's WebFetch does), bodies are streamed and cut
at a size cap, binary content is refused, and each URL reports its own error without failing the
others. Settings: ``[tools.fetch] timeout_s`` (connect/read, per operation) and ``max_bytes``.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from agent_tui import __version__
from agent_tui.errors import ToolError
from agent_tui.tools.base import BaseTool, Confirmation, Prepared, ToolContext, ToolResult
from agent_tui.tools.fetch_webpage_text import cut_text, html_title, html_to_text, narrow_to_query

MAX_URLS = 10
MAX_REDIRECTS = 5
DEFAULT_TIMEOUT_S = 20.0
DEFAULT_MAX_BYTES = 2_000_000
TOTAL_CHARS = 40_000  # all pages together, shared between them
PAGE_CHARS = 20_000  # one page without a query
QUERY_CHARS = 8_000  # one page narrowed to a query

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-javascript",
        "application/yaml",
        "application/x-yaml",
        "application/toml",
        "application/x-sh",
        "application/sql",
        "application/graphql",
    }
)


def _is_text(mime: str) -> bool:
    return (
        mime.startswith("text/")
        or mime in _TEXT_TYPES
        or mime in _HTML_TYPES
        or mime.endswith(("+json", "+xml"))
    )


def check_url(url: str, *, what: str = "URL") -> str:
    """Return ``url`` if it is an http(s) URL with a host.

    Raises:
        ToolError: another scheme (file:, ftp:, data: ...) or no host.
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in ("http", "https"):
        raise ToolError(
            f"{what} {url!r} is not http(s); fetch_webpage only fetches http:// and https:// "
            "URLs (read workspace files with read_file)."
        )
    if not parts.hostname:
        raise ToolError(
            f"{what} {url!r} has no host name; give a full URL like https://example.com/page."
        )
    return url.strip()


def _site(url: str) -> tuple[str, int | None]:
    """What a redirect must keep: the host (``www.`` aside) and an explicit port."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    return host, parts.port


def same_site(origin: str, target: str) -> bool:
    """A redirect ``target`` may be followed from ``origin``: same site, never https→http."""
    downgrade = urlsplit(origin).scheme == "https" and urlsplit(target).scheme == "http"
    return _site(origin) == _site(target) and not downgrade


def _urls(input: dict[str, Any]) -> list[str]:
    urls = input.get("urls")
    if isinstance(urls, str):
        urls = [urls]
    if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
        raise ToolError("`urls` is required: a list of one or more http(s) URLs as strings.")
    if len(urls) > MAX_URLS:
        raise ToolError(f"At most {MAX_URLS} URLs per call; split them over several calls.")
    return [check_url(u) for u in dict.fromkeys(urls)]


@dataclass
class Page:
    """A fetched response: the final URL, its type, its body (maybe cut) and charset."""

    url: str  # after redirects
    mime: str
    body: bytes
    charset: str | None
    truncated: bool


async def download(client: httpx.AsyncClient, url: str, max_bytes: int) -> Page:
    """GET ``url`` following at most MAX_REDIRECTS http(s) redirects; stop reading at ``max_bytes``.

    Raises:
        ToolError: bad redirect, HTTP error status, or binary content.
        httpx.HTTPError: the connection failed or timed out.
    """
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        async with client.stream("GET", current) as response:
            if response.has_redirect_location:
                target = str(response.url.join(response.headers["location"]))
                check_url(target, what=f"{current} redirected to")
                if not same_site(current, target):
                    raise ToolError(
                        f"{current} redirects to another site: {target} (HTTP "
                        f"{response.status_code}). It was not followed; call fetch_webpage with "
                        "that URL if you want it."
                    )
                current = target
                continue
            if response.status_code >= 400:
                raise ToolError(f"HTTP {response.status_code} {response.reason_phrase}".rstrip())
            content_type = response.headers.get("content-type", "")
            mime = content_type.split(";")[0].strip().lower()
            if mime and not _is_text(mime):
                size = response.headers.get("content-length")
                raise ToolError(
                    f"binary content ({mime}{', ' + size + ' bytes' if size else ''}); "
                    "fetch_webpage returns text pages only."
                )
            body = bytearray()
            truncated = False
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    del body[max_bytes:]
                    truncated = True
                    break
            match = re.search(r"charset=[\"']?([\w.:-]+)", content_type, re.IGNORECASE)
            return Page(str(response.url), mime, bytes(body), match and match.group(1), truncated)
    raise ToolError(
        f"too many redirects (more than {MAX_REDIRECTS}); the last one went to {current}"
    )


def decode(page: Page) -> str:
    """The page's text: the declared charset, else a <meta charset>, else UTF-8."""
    charset = page.charset
    if charset is None and page.mime in _HTML_TYPES | {""}:
        meta = re.search(rb"<meta[^>]+charset=[\"']?([\w.:-]+)", page.body[:4096], re.IGNORECASE)
        charset = meta.group(1).decode("ascii") if meta else None
    try:
        return page.body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # an unknown charset name
        return page.body.decode("utf-8", errors="replace")


def page_text(page: Page, query: str | None, limit: int) -> str:
    """Title line + readable text of a page, narrowed to ``query`` and cut to ``limit``."""
    if b"\x00" in page.body[:2048]:
        raise ToolError(
            "binary content (no content type, NUL bytes); fetch_webpage returns text only."
        )
    raw = decode(page)
    looks_html = page.mime in _HTML_TYPES or (not page.mime and raw.lstrip()[:1] == "<")
    title = html_title(raw) if looks_html else ""
    text = html_to_text(raw) if looks_html else raw.strip()
    text = text or "(The page has no readable text.)"
    header = f"Title: {title}\n" if title else ""
    if page.truncated:
        header += f"(Only the first {len(page.body):,} bytes were read: the page is larger.)\n"
    if query:
        narrowed, matched = narrow_to_query(text, query, min(limit, QUERY_CHARS))
        if not matched:
            header += f"Nothing on the page matched {query!r}; here is its start.\n"
        return header + "\n" + narrowed
    return header + "\n" + cut_text(text, limit, "pass a `query` to get the parts you need")


class FetchWebpageTool(BaseTool):
    name = "fetch_webpage"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        urls = _urls(input)
        query = input.get("query")
        listing = "\n".join(f"- <{url}>" for url in urls)
        if isinstance(query, str) and query.strip():
            listing += f"\n\nLooking for: {query.strip()}"
        target = urls[0] if len(urls) == 1 else f"{len(urls)} pages"
        return Prepared(
            invocation_message=f"Fetching {target}",
            past_tense_message=f"Fetched {target}",
            confirmation=Confirmation(
                "Fetch web page?" if len(urls) == 1 else "Fetch web pages?", listing
            ),
            urls=tuple(urls),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        urls = _urls(input)
        query = input.get("query")
        if query is not None and not isinstance(query, str):
            raise ToolError("`query` must be a string (or left out).")
        settings = ctx.config.section("tools", "fetch") if ctx.config is not None else None
        settings = settings if isinstance(settings, dict) else {}
        timeout = float(settings.get("timeout_s", DEFAULT_TIMEOUT_S))
        max_bytes = int(settings.get("max_bytes", DEFAULT_MAX_BYTES))
        limit = min(PAGE_CHARS, TOTAL_CHARS // len(urls))
        async with httpx.AsyncClient(
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,  # followed by hand: each hop is checked
            headers={"User-Agent": f"agent-tui/{__version__} (fetch_webpage)"},
        ) as client:
            sections = await asyncio.gather(
                *(self._one(client, url, query, timeout, max_bytes, limit) for url in urls)
            )
        failed = sum(1 for ok, _ in sections if not ok)
        content = "\n\n".join(text for _, text in sections)
        return ToolResult(content, is_error=failed == len(urls), data={"failed": failed})

    async def _one(
        self,
        client: httpx.AsyncClient,
        url: str,
        query: str | None,
        timeout: float,
        max_bytes: int,
        limit: int,
    ) -> tuple[bool, str]:
        try:
            # Per-operation timeouts don't bound a server that trickles bytes; this does.
            async with asyncio.timeout(timeout * 4):
                page = await download(client, url, max_bytes)
            text = await asyncio.to_thread(page_text, page, query, limit)
        except ToolError as exc:
            return False, f"## {url}\nError: {exc}"
        except (httpx.TimeoutException, TimeoutError):
            return (
                False,
                f"## {url}\nError: timed out (limit {timeout:g} s); try again later or another source.",
            )
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            return False, f"## {url}\nError: request failed: {exc or type(exc).__name__}"
        heading = f"## {page.url}" + (f" (redirected from {url})" if page.url != url else "")
        return True, f"{heading}\n{text.strip()}"
