"""fetch_webpage against a real HTTP server on 127.0.0.1 (port 0)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from agent_tui.config import load_config
from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.fetch_webpage import same_site
from agent_tui.tools.fetch_webpage_text import narrow_to_query, strip_html
from agent_tui.tools.registry import builtin_registry

ARTICLE = """<!doctype html>
<html><head><title>Gardening &amp; Fruit</title>
<script>var secretTracker = "do-not-show";</script>
<style>body { color: red; }</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article>
<h1>Growing fruit at home</h1>
<p>Growing your own fruit is rewarding. This guide covers the basics of soil, water and light
for common fruit trees and bushes in a temperate climate.</p>
<h2>Apples</h2>
<p>Apple trees need a sunny position and well-drained soil. Prune apple trees in winter when
they are dormant, removing crossing branches to keep the centre open.</p>
<h2>Blueberries</h2>
<p>Blueberries want acidic soil with a pH between 4.5 and 5.5. Water blueberries with rainwater
because tap water is often too alkaline for them.</p>
<h2>Strawberries</h2>
<p>Strawberries grow well in containers. Replace strawberry plants every three years because
older plants produce fewer berries.</p>
</article>
<footer>Copyright 2024 Example Gardens</footer>
</body></html>
"""


@dataclass
class Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


@dataclass
class Server:
    url: str
    routes: dict[str, Route]
    hits: dict[str, int]
    release: threading.Event  # the /slow handler waits on this


@pytest.fixture
def server() -> Iterator[Server]:
    routes: dict[str, Route] = {}
    hits: dict[str, int] = {}
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits[self.path] = hits.get(self.path, 0) + 1
            if self.path == "/slow":
                release.wait(30)
            route = routes.get(self.path, Route(404, {"Content-Type": "text/plain"}, b"nope"))
            self.send_response(route.status)
            for key, value in route.headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            try:
                self.wfile.write(route.body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading at its size cap

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield Server(f"http://127.0.0.1:{httpd.server_address[1]}", routes, hits, release)
    finally:
        release.set()
        httpd.shutdown()
        httpd.server_close()


def html(body: str) -> Route:
    return Route(200, {"Content-Type": "text/html; charset=utf-8"}, body.encode())


@pytest.fixture
def make_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., ToolContext]:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))

    def make(**fetch: Any) -> ToolContext:
        config = load_config(
            tmp_path,
            cli={"tools": {"fetch": fetch}} if fetch else None,
            env={},
            user_file=tmp_path / "rc",
        )
        return ToolContext(workspace=tmp_path, session=SessionState(), config=config)

    return make


async def fetch(ctx: ToolContext, **input: Any) -> Any:
    tool = builtin_registry().get("fetch_webpage")
    tool.prepare(input, ctx)
    return await tool.invoke(input, ctx)


async def test_html_page_becomes_readable_text(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/article"] = html(ARTICLE)
    result = await fetch(make_ctx(), urls=[server.url + "/article"])
    text = result.content
    assert result.is_error is False
    assert "Title: Gardening & Fruit" in text
    assert "Prune apple trees in winter" in text
    assert "Blueberries want acidic soil" in text
    assert "<p>" not in text and "</" not in text
    assert "secretTracker" not in text and "color: red" not in text


async def test_query_keeps_the_matching_paragraphs_with_their_headings(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/article"] = html(ARTICLE)
    result = await fetch(make_ctx(), urls=[server.url + "/article"], query="blueberry soil pH")
    text = result.content
    assert "Blueberries want acidic soil" in text
    assert "Blueberries" in text.split("Blueberries want")[0]  # its heading comes first
    assert "Strawberries grow well in containers" not in text
    assert "Prune apple trees" not in text  # matches only "soil": far weaker than the best


def test_query_with_no_match_returns_the_start_and_says_so() -> None:
    text, matched = narrow_to_query("# Title\n\nAlpha beta.\n\nGamma delta.", "zebra", 1000)
    assert matched is False
    assert text.startswith("# Title")


def test_fallback_strip_drops_scripts_and_keeps_headings() -> None:
    text = strip_html(
        "<html><head><script>x()</script></head><body><h2>Hi</h2><p>a &amp; b</p></body></html>"
    )
    assert text == "## Hi\n\na & b"


async def test_plain_text_and_json_are_returned_as_is(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/notes.txt"] = Route(
        200, {"Content-Type": "text/plain"}, b"line one\n<b>not html</b>\n"
    )
    server.routes["/data"] = Route(200, {"Content-Type": "application/json"}, b'{"answer": 42}')
    result = await fetch(make_ctx(), urls=[server.url + "/notes.txt", server.url + "/data"])
    assert "line one\n<b>not html</b>" in result.content
    assert '{"answer": 42}' in result.content


async def test_redirect_is_followed_and_reported(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/old"] = Route(301, {"Location": "/article"})
    server.routes["/article"] = html(ARTICLE)
    result = await fetch(make_ctx(), urls=[server.url + "/old"])
    assert f"## {server.url}/article (redirected from {server.url}/old)" in result.content
    assert "Prune apple trees" in result.content


async def test_redirect_loop_stops_after_five_hops(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/loop"] = Route(302, {"Location": "/loop"})
    result = await fetch(make_ctx(), urls=[server.url + "/loop"])
    assert "too many redirects (more than 5)" in result.content
    assert result.is_error is True
    assert server.hits["/loop"] == 6  # the first request and five redirects, then it stopped


async def test_redirect_to_another_site_is_reported_not_followed(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    # An approved URL must not lead the fetch somewhere the approval rules never saw.
    port = server.url.rsplit(":", 1)[1]
    elsewhere = f"http://localhost:{port}/article"  # the same server under another host name
    server.routes["/away"] = Route(302, {"Location": elsewhere})
    server.routes["/article"] = html(ARTICLE)
    result = await fetch(make_ctx(), urls=[server.url + "/away"])
    assert result.is_error is True
    assert f"redirects to another site: {elsewhere} (HTTP 302)" in result.content
    assert "call fetch_webpage with that URL" in result.content
    assert "/article" not in server.hits and "Prune apple trees" not in result.content


@pytest.mark.parametrize(
    ("origin", "target", "followed"),
    [
        ("http://example.com/a", "https://example.com/b", True),  # upgraded to https
        ("https://example.com/a", "https://www.example.com/b", True),
        ("https://www.Example.com/a", "https://example.com/b", True),
        ("https://example.com/a", "http://example.com/b", False),  # downgraded
        ("https://example.com/a", "https://example.com:8443/b", False),
        ("https://example.com/a", "https://docs.example.com/b", False),
        ("https://example.com/a", "https://example.com.evil.test/b", False),
        ("https://example.com/a", "https://example.com@evil.test/b", False),
    ],
)
def test_which_redirects_stay_on_the_site(origin: str, target: str, followed: bool) -> None:
    assert same_site(origin, target) is followed


async def test_redirect_to_a_non_http_scheme_is_refused(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/sneaky"] = Route(302, {"Location": "file:///etc/passwd"})
    result = await fetch(make_ctx(), urls=[server.url + "/sneaky"])
    assert "not http(s)" in result.content
    assert "root:" not in result.content


async def test_size_cap_stops_reading(server: Server, make_ctx: Callable[..., ToolContext]) -> None:
    body = ("start\n" + "x" * 100 + "\n") + ("filler line\n" * 20_000) + "THE-END\n"
    server.routes["/big"] = Route(200, {"Content-Type": "text/plain"}, body.encode())
    result = await fetch(make_ctx(max_bytes=4096), urls=[server.url + "/big"])
    assert "Only the first 4,096 bytes were read" in result.content
    assert "start" in result.content
    assert "THE-END" not in result.content


async def test_long_page_is_cut_and_says_so(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    body = "".join(f"line {i}\n" for i in range(10_000)).encode()
    server.routes["/long"] = Route(200, {"Content-Type": "text/plain"}, body)
    result = await fetch(make_ctx(), urls=[server.url + "/long"])
    assert len(result.content) < 21_000
    assert "[... cut:" in result.content and "line 9999" not in result.content


async def test_404_is_reported_without_failing_the_other_urls(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/article"] = html(ARTICLE)
    result = await fetch(make_ctx(), urls=[server.url + "/missing", server.url + "/article"])
    assert f"## {server.url}/missing\nError: HTTP 404 Not Found" in result.content
    assert "Prune apple trees" in result.content
    assert result.is_error is False
    assert result.data["failed"] == 1


async def test_binary_content_type_is_refused(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    server.routes["/logo.png"] = Route(
        200, {"Content-Type": "image/png"}, b"\x89PNG\r\n\x1a\n\x00\x00"
    )
    result = await fetch(make_ctx(), urls=[server.url + "/logo.png"])
    assert "binary content (image/png" in result.content
    assert "PNG" not in result.content.split("Error:")[1].split("binary")[0]


async def test_slow_server_times_out(server: Server, make_ctx: Callable[..., ToolContext]) -> None:
    server.routes["/slow"] = html(ARTICLE)
    result = await fetch(make_ctx(timeout_s=0.3), urls=[server.url + "/slow"])
    assert "timed out" in result.content
    assert result.is_error is True


async def test_connection_refused_is_reported(make_ctx: Callable[..., ToolContext]) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on: bind, learn it, close
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = await fetch(make_ctx(), urls=[f"http://127.0.0.1:{port}/"])
    assert "request failed" in result.content


def test_prepare_lists_the_urls_for_the_confirmation(make_ctx: Callable[..., ToolContext]) -> None:
    tool = builtin_registry().get("fetch_webpage")
    prepared = tool.prepare(
        {"urls": ["https://a.example/x", "https://b.example/"], "query": "install"}, make_ctx()
    )
    assert prepared.urls == ("https://a.example/x", "https://b.example/")
    assert prepared.confirmation is not None
    assert "https://a.example/x" in prepared.confirmation.message
    assert "install" in prepared.confirmation.message
    assert prepared.invocation_message == "Fetching 2 pages"


@pytest.mark.parametrize(
    ("input", "message"),
    [
        ({}, "`urls` is required"),
        ({"urls": []}, "`urls` is required"),
        ({"urls": [3]}, "`urls` is required"),
        ({"urls": ["file:///etc/passwd"]}, "not http"),
        ({"urls": ["ftp://example.com/x"]}, "not http"),
        ({"urls": ["javascript:alert(1)"]}, "not http"),
        ({"urls": ["https://"]}, "no host"),
        ({"urls": [f"https://e.example/{i}" for i in range(11)]}, "At most 10"),
    ],
)
async def test_bad_input_is_a_tool_error(
    make_ctx: Callable[..., ToolContext], input: dict[str, Any], message: str
) -> None:
    tool = builtin_registry().get("fetch_webpage")
    ctx = make_ctx()
    with pytest.raises(ToolError, match=message):
        tool.prepare(input, ctx)
    with pytest.raises(ToolError, match=message):
        await tool.invoke(input, ctx)


def test_query_narrowing_respects_its_cap() -> None:
    page = "\n\n".join(
        f"## Part {i}\n\nThe widget setting number {i} controls widgets." for i in range(500)
    )
    text, matched = narrow_to_query(page, "widget setting", 2000)
    assert matched
    assert len(text) <= 2000 + 500  # headings come on top of the paragraphs
    assert "Part 0" in text  # ties go to the earlier paragraphs, kept in page order
    assert text.index("Part 0") < text.index("Part 1")


async def test_charset_from_meta_tag_is_used(
    server: Server, make_ctx: Callable[..., ToolContext]
) -> None:
    page = '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body><p>Un caf\xe9 cr\xe8me, s\'il vous pla\xeet.</p></body></html>'
    server.routes["/fr"] = Route(200, {"Content-Type": "text/html"}, page.encode("latin-1"))
    result = await fetch(make_ctx(), urls=[server.url + "/fr"])
    assert "Title: Café" in result.content
    assert "Un café crème" in result.content
