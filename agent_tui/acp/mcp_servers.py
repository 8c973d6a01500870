"""The MCP servers a client passes in ``session/new`` as the config layer that starts them.

They join the configured servers for that session as ``[mcp.servers.NAME]`` entries of the
highest layer (as flags are): the client's own choice, so no trust is needed. A name the config
also uses is taken by the client's server, as a flag beats the config.
"""

from __future__ import annotations

from typing import Any


def config_layer(servers: list[Any]) -> dict[str, Any]:
    """``{"mcp": {"servers": {...}}}`` for ACP's stdio and HTTP servers (SSE and ACP-transport
    servers are not offered in ``initialize``, so a client sends none; any sent are skipped)."""
    from acp.schema import HttpMcpServer, McpServerStdio

    entries: dict[str, dict[str, Any]] = {}
    for server in servers:
        if isinstance(server, McpServerStdio):
            entries[server.name] = {
                "command": server.command,
                "args": list(server.args),
                "env": {v.name: v.value for v in server.env or []},
            }
        elif isinstance(server, HttpMcpServer):
            entries[server.name] = {
                "type": "http",
                "url": server.url,
                "headers": {h.name: h.value for h in server.headers or []},
            }
    return {"mcp": {"servers": entries}} if entries else {}
