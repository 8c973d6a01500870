"""A short-lived child's pipes: feed its stdin, read its output capped, kill its process group.

Hooks (``hooks/runner.py``) and the status-line command (``status_line.py``) run a user's shell
command with JSON on stdin and read what it prints; both start it in its own process group
(``start_new_session``) so a timeout kills whatever it started too.
"""

from __future__ import annotations

import asyncio
import os
import signal

MAX_OUTPUT = 64 * 1024  # per stream: a chatty command must not flood memory or the context


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (started with ``start_new_session``)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def feed(stream: asyncio.StreamWriter, data: bytes) -> None:
    """Write ``data`` and close the pipe; a child that does not read its stdin is fine."""
    try:
        stream.write(data)
        await stream.drain()
        stream.close()
    except (BrokenPipeError, ConnectionResetError):
        pass


async def read_capped(stream: asyncio.StreamReader, limit: int = MAX_OUTPUT) -> str:
    """The first ``limit`` bytes; the rest is read and dropped (a flood must not fill memory)."""
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < limit:
            kept += chunk[: limit - len(kept)]
    return kept.decode("utf-8", "replace")
