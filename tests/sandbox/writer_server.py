"""A tiny real MCP server (stdio) with one tool that writes a file where it is told."""

from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("writer")


@server.tool()
def write(path: str) -> str:
    """Write "written" to `path` and say so (or say why not)."""
    try:
        Path(path).write_text("written")
    except OSError as exc:
        return f"failed: {exc}"
    return "ok"


if __name__ == "__main__":
    server.run()
