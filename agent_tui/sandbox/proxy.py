"""The sandbox's one way out: an HTTP proxy outside it that lets through allowed domains only.

One proxy per session on a Unix socket, reached through the bridge in the sandbox's network
namespace (``netns.py``; or one proxy per command where that namespace cannot be shared). Each
command's proxy URL carries a token of its own as the user name (``http://TOKEN@127.0.0.1:3128``,
which curl, pip, npm, git and Python send back as ``Proxy-Authorization``), so what a command tried
and was refused is known per command: ``blocked[token]`` lists the domains in order, and the
approval ladder asks about them afterwards. Speaks what tools that honour
``HTTP(S)_PROXY`` send: ``CONNECT host:port`` (HTTPS, and any TCP a client tunnels) and plain HTTP
requests with an absolute URI. An IP address or ``localhost`` passes only when listed as such, so a
server on the host's loopback is out of reach unless the user says otherwise.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

logger = logging.getLogger(__name__)

MAX_HEAD = 64 * 1024
CONNECT_TIMEOUT_S = 20.0
_HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


class DomainProxy:
    """An HTTP/CONNECT proxy on ``socket_path`` that asks ``allowed(host, token)`` per request.

    Args:
        socket_path: where to listen (its folder must not be writable from the sandbox).
        allowed: whether a host may be reached by the command with that token ("" for none).
    """

    def __init__(self, socket_path: Path, allowed: Callable[[str, str], bool]) -> None:
        self.socket_path = socket_path
        self.allowed = allowed
        self.blocked: dict[str, list[str]] = {}  # token -> refused hosts, in order
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self._server = await asyncio.start_unix_server(self._handle, path=str(self.socket_path))

    async def start_tcp(self) -> int:
        """Listen on a free loopback port instead (macOS: no network namespace, no bridge)."""
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        with contextlib.suppress(OSError):
            self.socket_path.unlink()

    def _block(self, token: str, host: str) -> None:
        found = self.blocked.setdefault(token, [])
        if host not in found:
            found.append(host)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEAD:
            return
        line, _, rest = head.partition(b"\r\n")
        method, target, version = line.decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port_text = target.rpartition(":")
            path = ""
        else:
            parts = urlsplit(target)
            if parts.scheme != "http" or not parts.hostname:
                await _reply(writer, 400, "the sandbox proxy takes absolute http:// URLs")
                return
            host, port_text = parts.hostname, str(parts.port or 80)
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = host.strip("[]").lower()
        token = _token(rest)
        if not host or not port_text.isdigit() or not self.allowed(host, token):
            self._block(token, host or target)
            await _reply(
                writer, 403, f"agent-tui sandbox: network access to {host or target} is not allowed"
            )
            return
        try:
            up_reader, up_writer = await asyncio.wait_for(
                asyncio.open_connection(host, int(port_text)), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as exc:
            await _reply(writer, 502, f"agent-tui sandbox proxy: cannot reach {host}: {exc}")
            return
        if method.upper() == "CONNECT":
            writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        else:
            kept = [h for h in rest.split(b"\r\n") if h and not _is_hop(h)]
            first = f"{method} {path} {version}".encode("latin-1")
            up_writer.write(b"\r\n".join([first, *kept, b"Connection: close", b"", b""]))
        await writer.drain()
        await _pipe_both(reader, writer, up_reader, up_writer)


def _token(headers: bytes) -> str:
    """The user name of ``Proxy-Authorization: Basic …`` (the command's token), or ""."""
    for line in headers.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() != b"proxy-authorization":
            continue
        scheme, _, encoded = value.strip().partition(b" ")
        if scheme.lower() != b"basic":
            return ""
        try:
            decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return ""
        return decoded.partition(":")[0]
    return ""


def _is_hop(header: bytes) -> bool:
    name = header.split(b":", 1)[0].strip().lower()
    return name in _HOP_HEADERS


async def _reply(writer: asyncio.StreamWriter, status: int, text: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
    body = (text + "\n").encode()
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    with contextlib.suppress(OSError):
        await writer.drain()


async def _copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
    try:
        while chunk := await src.read(65536):
            dst.write(chunk)
            await dst.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            if dst.can_write_eof():
                dst.write_eof()


async def _pipe_both(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    up_reader: asyncio.StreamReader,
    up_writer: asyncio.StreamWriter,
) -> None:
    try:
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
    finally:
        up_writer.close()
