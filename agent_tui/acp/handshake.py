"""``initialize`` answered before the ``acp`` library is imported.

An editor spawns the agent and waits for the answer to ``initialize`` before it shows the agent as
ready; importing the library's schema (pydantic models of the whole protocol) takes most of a
second. So the first line on stdin is read here, and if it is ``initialize`` it is answered from
plain JSON at once; the library is imported after, and reads the rest of stdin (``leftover``)
as if nothing had happened. Anything else on the first line goes to the library untouched.

The answer is built once, here: ``AcpServer.initialize`` (a client that sends it later) validates
the same dict into the library's model, and the tests read it with the library's client.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agent_tui import __version__

# The protocol version this agent speaks (the library's ``acp.PROTOCOL_VERSION``, checked by a test).
PROTOCOL_VERSION = 1
AUTH_METHOD = "env-api-key"
AUTH_HELP = (
    "agent-tui reads its API key from the environment it is started with: set ANTHROPIC_API_KEY "
    "or OPENAI_API_KEY (or a local server's --base-url) where the editor starts agent-tui acp."
)
# A first line longer than this is not read here: the library reads it (with its own limit).
MAX_FIRST_LINE = 1 << 20


def initialize_result(requested: int) -> dict[str, Any]:
    """The ``initialize`` result (the protocol's camelCase JSON) for a client's version."""
    return {
        "protocolVersion": min(requested, PROTOCOL_VERSION),
        "agentCapabilities": {
            "loadSession": True,
            "promptCapabilities": {"image": True, "embeddedContext": True},
            "mcpCapabilities": {"http": True},  # stdio servers need no capability
            # additionalDirectories: a session's extra roots, as `--add-dir` (front.add_root).
            "sessionCapabilities": {"list": {}, "additionalDirectories": {}},
        },
        "authMethods": [{"id": AUTH_METHOD, "name": "API key", "description": AUTH_HELP}],
        "agentInfo": {"name": "agent-tui", "title": "agent-tui", "version": __version__},
    }


def answer_initialize(stdin_fd: int, protocol_out: int) -> tuple[bytes, dict[str, Any]]:
    """Read the first line of ``stdin_fd``; if it is ``initialize``, answer it on
    ``protocol_out``. Blocks until a line (or end of input) arrives.

    Returns:
        What the library must still read (the bytes past the answered line, or all of them),
        and the client's capabilities (``clientCapabilities``; empty when not answered here).
    """
    read = _first_line(stdin_fd)
    line, newline, rest = read.partition(b"\n")
    request = _initialize_request(line) if newline else None
    if request is None:
        return read, {}
    params = request["params"]
    answer = {
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": initialize_result(params["protocolVersion"]),
    }
    _write_all(protocol_out, json.dumps(answer).encode() + b"\n")
    capabilities = params.get("clientCapabilities")
    return rest, capabilities if isinstance(capabilities, dict) else {}


def _first_line(fd: int) -> bytes:
    read = b""
    while b"\n" not in read and len(read) < MAX_FIRST_LINE:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        read += chunk
    return read


def _initialize_request(line: bytes) -> dict[str, Any] | None:
    """The line as an ``initialize`` request this module can answer (None: leave it)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    request_id = message.get("id")
    if not isinstance(params, dict) or not isinstance(request_id, (int, str)):
        return None
    version = params.get("protocolVersion")
    if not isinstance(version, int) or isinstance(version, bool):
        return None  # the library answers a malformed request with its error
    return message


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data) :]
