"""A tiny real MCP server (stdio) that reports its environment and arguments.

Shows what a server was started with, e.g. the value an ``${input:ID}`` variable filled in.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("env")


@server.tool()
def getenv(name: str) -> str:
    """The value of environment variable `name` ("(unset)" when absent)."""
    return os.environ.get(name, "(unset)")


@server.tool()
def argv() -> str:
    """The server's command-line arguments, space-separated."""
    return " ".join(sys.argv[1:])


if __name__ == "__main__":
    server.run()
