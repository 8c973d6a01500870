"""A small HTTP/1.1 client on asyncio streams, for the one request shape the model APIs need.

Why: importing httpx (with httpcore, h11, anyio, idna and their typing helpers) costs ~45 ms, a
quarter of ``agent-tui -p hello``, and every request the providers make is the
same: POST a JSON body, read the status and headers, then stream the body. This module does that
and no more, on the asyncio the app already runs:

- http and https (TLS verified against certifi's CA bundle, or ``SSL_CERT_FILE`` /
  ``SSL_CERT_DIR`` when set: what httpx does);
- a chunked, Content-Length or read-to-close body, decoded as text incrementally;
- one kept-alive connection per client, re-opened once if the server had closed it while idle,
  and kept also when the caller stops at the answer's last event (its tail is read in the
  background);
- a connect timeout and a per-read timeout (``Timeout``); any other failure is
  ``TransportError``.

What it does not do, ``suits()`` reports, and the provider then uses httpx as before: proxies
(``HTTP(S)_PROXY`` / ``ALL_PROXY`` in the environment), user:password in the URL, other schemes.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import json
import os
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import SplitResult, urlsplit

MAX_HEADER_BYTES = 64 * 1024
MAX_HEADERS = 200
READ_SIZE = 64 * 1024
# An answer the caller stopped reading early: how much, and how long, to read to keep its connection.
DRAIN_LIMIT = 64 * 1024
DRAIN_TIMEOUT_S = 2.0
DRAIN_WAIT_S = 0.05  # the longest a new request waits for such a connection before opening one
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


class TransportError(Exception):
    """The connection could not be made, or broke, or the server spoke something else."""


class Timeout(TransportError):
    """No connection, or no data, within the timeout."""


def suits(url: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether this client can make the request (else the caller uses httpx).

    Args:
        url: the endpoint.
        env: the environment (defaults to ``os.environ``); a proxy setting means httpx, which
            honours proxies and ``NO_PROXY``.
    """
    env = os.environ if env is None else env
    if any(value for name, value in env.items() if name.lower() in _PROXY_VARIABLES):
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.username is None


def _ssl_context() -> ssl.SSLContext:
    if os.environ.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    if os.environ.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    try:
        import certifi
    except ImportError:  # certifi comes with httpx; without it, the system's store
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=certifi.where())


class Response:
    """A response whose body is read as it arrives (the part of httpx.Response the providers use).

    Attributes:
        status_code: the HTTP status.
        headers: header names in lower case (a repeated header keeps its last value).
        content: the body, once :meth:`aread` has read it.
    """

    def __init__(self, conn: _Connection, status: int, headers: dict[str, str], timeout: float):
        self.status_code = status
        self.headers = headers
        self.content = b""
        self._conn = conn
        self._timeout = timeout
        self._chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        length = headers.get("content-length")
        self._left: int | None = None
        if not self._chunked and length is not None:
            try:
                self._left = int(length)
            except ValueError:
                self._left = -1
            if self._left < 0:
                raise TransportError(f"bad Content-Length {length[:40]!r}")
        self._chunk_left = 0  # bytes of the current chunk still to read
        self.complete = False

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive; ``complete`` is set once all of it has."""
        reader = self._conn.reader
        while not self.complete:
            async with _reading(self._timeout):
                if self._chunked:
                    data = await self._next_chunk(reader)
                elif self._left is not None:
                    data = await reader.read(min(self._left, READ_SIZE)) if self._left else b""
                    if self._left and not data:
                        raise TransportError("the connection closed before the body's end")
                    self._left -= len(data)
                    self.complete = self._left == 0
                else:  # no length: the body ends when the server closes the connection
                    data = await reader.read(READ_SIZE)
                    self.complete = not data
                    self._conn.reusable = False
            if data:
                yield data

    async def _next_chunk(self, reader: asyncio.StreamReader) -> bytes:
        if self._chunk_left == 0:
            line = await reader.readline()
            if not line.endswith(b"\n"):
                raise TransportError("the connection closed in the middle of the body")
            try:
                size = int(line.split(b";", 1)[0].strip(), 16)
            except ValueError:
                size = -1
            if size < 0:
                raise TransportError(f"bad chunk size {line[:40]!r}")
            if size == 0:
                for _ in range(MAX_HEADERS):
                    trailer = await reader.readline()
                    if trailer in (b"\r\n", b"\n"):
                        self.complete = True
                        return b""
                    if not trailer:
                        raise TransportError("the connection closed in the chunked trailer")
                raise TransportError(f"more than {MAX_HEADERS} trailer lines")
            self._chunk_left = size
        # A chunk is read in pieces: its declared size is the server's word, not a buffer size.
        data = await reader.read(min(self._chunk_left, READ_SIZE))
        if not data:
            raise TransportError("the connection closed in the middle of the body")
        self._chunk_left -= len(data)
        if self._chunk_left == 0 and await reader.readline() not in (b"\r\n", b"\n"):
            raise TransportError("a chunk does not end where its size says")
        return data

    async def aiter_text(self) -> AsyncIterator[str]:
        """The body as text, decoded incrementally in the declared charset (UTF-8 by default)."""
        decoder = codecs.getincrementaldecoder(self._charset())(errors="replace")
        async for data in self.aiter_bytes():
            text = decoder.decode(data)
            if text:
                yield text
        tail = decoder.decode(b"", final=True)
        if tail:
            yield tail

    async def aread(self) -> bytes:
        """Read the whole body into ``content``."""
        self.content = b"".join([data async for data in self.aiter_bytes()])
        return self.content

    def _charset(self) -> str:
        for param in self.headers.get("content-type", "").split(";")[1:]:
            name, _, value = param.strip().partition("=")
            if name.lower() == "charset" and value:
                try:
                    return codecs.lookup(value.strip('"')).name
                except LookupError:
                    break
        return "utf-8"


@contextlib.asynccontextmanager
async def _reading(timeout: float) -> AsyncIterator[None]:
    try:
        async with asyncio.timeout(timeout):
            yield
    except TimeoutError:
        raise Timeout(f"no data for {timeout:g} s") from None
    except asyncio.IncompleteReadError:
        raise TransportError("the connection closed in the middle of the body") from None
    except (OSError, ssl.SSLError, ValueError) as exc:
        # ValueError: StreamReader's line limit (a chunk-size line past MAX_HEADER_BYTES).
        raise TransportError(f"{type(exc).__name__}: {exc}") from None


class _Connection:
    def __init__(self, key: tuple[str, str, int], reader: Any, writer: Any) -> None:
        self.key = key
        self.reader: asyncio.StreamReader = reader
        self.writer: asyncio.StreamWriter = writer
        self.reusable = True

    def close(self) -> None:
        self.writer.close()


class Client:
    """POSTs JSON and streams the response, keeping one connection alive between requests.

    Args:
        timeout_s: the longest wait for any read (and for sending).
        connect_timeout_s: the longest wait to connect (TLS included).
        headers: sent with every request (e.g. ``user-agent``).
    """

    def __init__(
        self, *, timeout_s: float, connect_timeout_s: float, headers: Mapping[str, str]
    ) -> None:
        self.timeout_s = timeout_s
        self.connect_timeout_s = connect_timeout_s
        self.headers = dict(headers)
        self._idle: _Connection | None = None
        self._ssl: ssl.SSLContext | None = None
        self._draining: dict[asyncio.Task[None], _Connection] = {}

    def stream_post(
        self, url: str, payload: Any, headers: Mapping[str, str]
    ) -> contextlib.AbstractAsyncContextManager[Response]:
        """POST ``payload`` as JSON to ``url``; the response's body streams inside the block."""
        return self.stream("POST", url, payload, headers)

    @contextlib.asynccontextmanager
    async def stream(
        self, method: str, url: str, payload: Any, headers: Mapping[str, str]
    ) -> AsyncIterator[Response]:
        """Send ``method`` to ``url`` with ``payload`` as JSON (None: no body, as for a GET); the
        response's body streams inside the block.

        Raises:
            Timeout: no connection or no data within the timeouts.
            TransportError: the connection failed or broke, or the answer was not HTTP/1.x.
        """
        parts = urlsplit(url)
        https = parts.scheme == "https"
        host = parts.hostname or ""
        port = parts.port or (443 if https else 80)
        request = _request_bytes(method, parts, payload, self.headers, headers)
        conn, response = await self._send((parts.scheme, host, port), https, request)
        try:
            yield response
        except BaseException:
            conn.close()
            raise
        if response.complete or not conn.reusable:
            self._keep(conn, response)
        else:
            # Stopped before the body's end (OpenAI's "[DONE]" comes just before it): read the
            # rest in the background, so the connection (and its TLS session) serves the next
            # request instead of a new handshake each round.
            task = asyncio.create_task(self._finish(conn, response))
            self._draining[task] = conn
            task.add_done_callback(self._draining.pop)

    def _keep(self, conn: _Connection, response: Response) -> None:
        if response.complete and conn.reusable and self._idle is None:
            self._idle = conn
        else:
            conn.close()

    async def _finish(self, conn: _Connection, response: Response) -> None:
        left = DRAIN_LIMIT
        try:
            async with asyncio.timeout(DRAIN_TIMEOUT_S):
                async for data in response.aiter_bytes():
                    left -= len(data)
                    if left < 0:
                        break  # more than an answer's tail: not worth keeping
        except (TransportError, TimeoutError):
            conn.close()
            return
        except BaseException:  # cancelled (aclose, the end of the run)
            conn.close()
            raise
        self._keep(conn, response)

    async def _send(
        self, key: tuple[str, str, int], https: bool, request: bytes
    ) -> tuple[_Connection, Response]:
        if self._draining:
            # The last answer's tail is normally in already; wait a moment for the connection.
            await asyncio.wait(self._draining, timeout=DRAIN_WAIT_S)
        idle, self._idle = self._idle, None
        if idle is not None and idle.key != key:
            idle.close()
            idle = None
        if idle is not None:
            try:
                return idle, await self._exchange(idle, request)
            except _StaleConnection:
                idle.close()  # closed by the server while idle: one fresh try, as httpx does
            except BaseException:
                idle.close()
                raise
        conn = await self._connect(key, https)
        try:
            return conn, await self._exchange(conn, request)
        except _StaleConnection:
            conn.close()
            raise TransportError("the server closed the connection without answering") from None
        except BaseException:
            conn.close()
            raise

    async def _connect(self, key: tuple[str, str, int], https: bool) -> _Connection:
        _, host, port = key
        if https and self._ssl is None:
            self._ssl = _ssl_context()
        try:
            async with asyncio.timeout(self.connect_timeout_s):
                reader, writer = await asyncio.open_connection(
                    host,
                    port,
                    ssl=self._ssl if https else None,
                    server_hostname=host if https else None,
                    limit=MAX_HEADER_BYTES,
                )
        except TimeoutError:
            raise Timeout(
                f"no connection to {host}:{port} in {self.connect_timeout_s:g} s"
            ) from None
        except (OSError, ssl.SSLError) as exc:
            raise TransportError(f"{type(exc).__name__}: {exc}") from None
        return _Connection(key, reader, writer)

    async def _exchange(self, conn: _Connection, request: bytes) -> Response:
        try:
            async with asyncio.timeout(self.timeout_s):
                conn.writer.write(request)
                await conn.writer.drain()
                status_line = await conn.reader.readline()
                if not status_line:
                    raise _StaleConnection
                status, headers = await _read_head(conn.reader, status_line)
                while 100 <= status < 200:  # an interim answer (100 Continue): the real one follows
                    status, headers = await _read_head(conn.reader, await conn.reader.readline())
        except _StaleConnection:
            raise
        except TimeoutError:
            raise Timeout(f"no answer in {self.timeout_s:g} s") from None
        except (ConnectionResetError, BrokenPipeError):
            raise _StaleConnection from None
        except (OSError, ssl.SSLError, ValueError) as exc:
            # ValueError: StreamReader's line limit (headers past MAX_HEADER_BYTES).
            raise TransportError(f"{type(exc).__name__}: {exc}") from None
        # HTTP/1.0 closes after each answer unless it says otherwise; "close" ends either.
        if "close" in headers.get("connection", "").lower() or status_line.startswith(b"HTTP/1.0"):
            conn.reusable = False
        return Response(conn, status, headers, self.timeout_s)

    async def aclose(self) -> None:
        """Close the kept-alive connection, if any, and stop reading answers' tails."""
        draining = dict(self._draining)
        for task in draining:
            task.cancel()
        await asyncio.gather(*draining, return_exceptions=True)
        for conn in draining.values():
            conn.close()  # a task cancelled before it ran never closed its connection
        if self._idle is not None:
            self._idle.close()
            self._idle = None


class _StaleConnection(Exception):
    """The server closed the connection before answering (a kept-alive one it had timed out)."""


async def _read_head(
    reader: asyncio.StreamReader, status_line: bytes
) -> tuple[int, dict[str, str]]:
    fields = status_line.decode("latin-1").split(None, 2)
    if len(fields) < 2 or not fields[0].startswith("HTTP/1.") or not fields[1].isdigit():
        raise TransportError(f"not an HTTP/1.x answer: {status_line[:60]!r}")
    headers: dict[str, str] = {}
    for _ in range(MAX_HEADERS):
        line = await reader.readline()
        if line in (b"\r\n", b"\n"):
            return int(fields[1]), headers
        if not line.endswith(b"\n"):
            raise TransportError("the connection closed in the middle of the headers")
        name, sep, value = line.decode("latin-1").partition(":")
        if not sep:
            raise TransportError(f"bad header line {line[:60]!r}")
        headers[name.strip().lower()] = value.strip()
    raise TransportError(f"more than {MAX_HEADERS} headers")


def _request_bytes(
    method: str,
    parts: SplitResult,
    payload: Any,
    client_headers: Mapping[str, str],
    headers: Mapping[str, str],
) -> bytes:
    """The request's head and JSON body, as sent.

    Raises:
        TransportError: an unsupported method, or a header with a line break or non-Latin-1 text.
    """
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    target = target.replace(" ", "%20")
    # The same encoding as httpx's json=: compact, UTF-8, no NaN.
    body = (
        ""
        if payload is None
        else json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    )
    data = body.encode("utf-8")
    head = {
        "host": parts.netloc,
        **client_headers,
        **({} if payload is None else {"content-type": "application/json"}),
        **{name.lower(): value for name, value in headers.items()},
        **({} if payload is None else {"content-length": str(len(data))}),
    }
    if method not in ("GET", "POST"):
        raise TransportError(f"unsupported method {method[:10]!r}")
    lines = [f"{method} {target} HTTP/1.1", *(f"{n}: {v}" for n, v in head.items())]
    if any(ch in line for line in lines for ch in "\r\n\0"):
        # A line break in a header value (a key pasted with a newline) would split the request.
        raise TransportError("a header name or value contains a line break")
    try:
        return "\r\n".join([*lines, "", ""]).encode("latin-1") + data
    except UnicodeEncodeError:
        raise TransportError("a header value is not Latin-1 text") from None
