"""A fake search engine on 127.0.0.1: SearXNG's ``/search?format=json`` and Brave's web search API.

It answers every query with ``results`` (SearXNG's shape: title, url, content; for Brave the same
under ``web.results`` with ``description``) and records each request's path and headers in
``hits``. Use as a context manager; ``url`` is the base URL (``http://127.0.0.1:PORT``).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BRAVE_PATH = "/res/v1/web/search"


@dataclass
class Hit:
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


@dataclass
class FakeSearch:
    results: list[dict[str, str]]
    brave_key: str = ""  # Brave: the X-Subscription-Token it accepts (else 401)
    hits: list[Hit] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeSearch:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake._answer(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(handler.path)
        self.hits.append(Hit(parts.path, parse_qs(parts.query), dict(handler.headers.items())))
        if parts.path == BRAVE_PATH:
            if handler.headers.get("X-Subscription-Token") != self.brave_key:
                return self._send(handler, 401, {"error": "bad key"})
            brave = [{**r, "description": r.get("content", "")} for r in self.results]
            return self._send(handler, 200, {"web": {"results": brave}})
        if parts.path == "/search" and parse_qs(parts.query).get("format") == ["json"]:
            return self._send(handler, 200, {"query": "", "results": self.results})
        self._send(handler, 404, {"error": "not found"})

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, payload: Any) -> None:
        body = json.dumps(payload).encode()
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
