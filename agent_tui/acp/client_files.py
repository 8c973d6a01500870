"""The client's editor for the file tools: ``fs/read_text_file`` and ``fs/write_text_file``,
each only when the client's ``initialize`` offered it, so the model reads unsaved buffers and
its edits land in them. The checks around them (the workspace, what the disk says first, the
encoding of the answer) are the core's (``tools/file_access.EditorFiles``, through
``Front.use_editor``); this is the wire.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.exceptions import RequestError

from agent_tui.errors import ToolError
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from acp.interfaces import Client

# What a request to the client may fail with: its error answer, the connection gone, an answer
# that is not the protocol's shape (pydantic's ValidationError is a ValueError).
CLIENT_FAILURES = (RequestError, ConnectionError, ValueError)


def offers_files(capabilities: dict[str, Any]) -> tuple[bool, bool]:
    """Whether the client reads and writes text files for the agent (``fs.readTextFile``,
    ``fs.writeTextFile`` in its ``initialize``)."""
    fs = capabilities.get("fs")
    if not isinstance(fs, dict):
        return False, False
    return fs.get("readTextFile") is True, fs.get("writeTextFile") is True


def reader(client: Client, session: Any) -> Callable[[Path], Awaitable[str]]:
    """``fs/read_text_file`` of a path, for ``session`` (an ``AcpSession``: its id changes when
    a saved session is loaded, so it is read at each call)."""

    async def read(path: Path) -> str:
        try:
            response = await client.read_text_file(session_id=session.id, path=str(path))
        except CLIENT_FAILURES as exc:
            raise ToolError(client_reason(exc)) from None
        return response.content

    return read


def writer(client: Client, session: Any) -> Callable[[Path, str], Awaitable[None]]:
    """``fs/write_text_file`` of a path's whole text, for ``session``."""

    async def write(path: Path, content: str) -> None:
        try:
            await client.write_text_file(session_id=session.id, path=str(path), content=content)
        except CLIENT_FAILURES as exc:
            raise ToolError(client_reason(exc)) from None

    return write


def client_reason(exc: Exception) -> str:
    """What the client said, on one line (its message and any data)."""
    data = getattr(exc, "data", None)
    said = f"{exc} ({data})" if data else str(exc) or type(exc).__name__
    return one_line(said)[:300]
