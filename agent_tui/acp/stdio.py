"""``run_acp``: the protocol on stdin/stdout, with ``initialize`` answered before the heavy imports.

This module imports nothing heavy at its top: the CLI imports it, ``handshake`` answers
``initialize`` from plain JSON, and only then are the ``acp`` library and the server (and through
them the core's events and the door) imported.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import TYPE_CHECKING, cast

from agent_tui.acp.handshake import answer_initialize

if TYPE_CHECKING:
    from agent_tui.acp.server import MakeFront


def run_acp(make_front: MakeFront) -> int:
    """Serve ACP on stdin/stdout until the client closes stdin; returns the exit code."""
    protocol_out = _protocol_stdout()
    try:
        leftover, capabilities = answer_initialize(sys.stdin.fileno(), protocol_out)
    except KeyboardInterrupt:  # Ctrl+C before the client said anything
        return 130
    from agent_tui.acp.server import AcpServer

    server = AcpServer(make_front, capabilities)

    async def main() -> None:
        from acp import Agent, run_agent

        reader, writer = await _stdio_streams(protocol_out, leftover)
        try:
            await run_agent(cast(Agent, server), writer, reader)
        finally:
            await server.aclose()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        return 130
    return 0


def _protocol_stdout() -> int:
    """A private copy of stdout for the protocol; fd 1 (and ``sys.stdout``) then point to stderr,
    so nothing else — a child process, a stray print — can corrupt the JSON-RPC stream."""
    sys.stdout.flush()
    protocol_out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol_out


async def _stdio_streams(
    protocol_out: int, leftover: bytes
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The protocol's reader (starting with what the handshake read past ``initialize``) and
    writer."""
    from acp.core import DEFAULT_STDIO_BUFFER_LIMIT_BYTES

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=DEFAULT_STDIO_BUFFER_LIMIT_BYTES)
    if leftover:
        reader.feed_data(leftover)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    out = os.fdopen(protocol_out, "wb", buffering=0)
    transport, protocol = await loop.connect_write_pipe(_WriteProtocol, out)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


class _WriteProtocol(asyncio.streams.FlowControlMixin):
    """Flow control for the protocol's pipe (``drain`` waits while the client reads slowly)."""

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        future.set_result(None)
        return future
