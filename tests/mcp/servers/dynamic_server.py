"""A small real MCP server (stdio, the SDK's MCPServer) whose tool list changes and is paginated.

server-everything registers its conditional tools before our first listing, so it cannot show that
a ``notifications/tools/list_changed`` arriving later refreshes the registry, and it never pages its
lists; this server does both: ``tools/list`` returns one tool per page, and ``add_tool`` adds one.
"""

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ListToolsResult, ToolAnnotations

PAGE_SIZE = 1


class PagedServer(MCPServer):
    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + PAGE_SIZE
        return ListToolsResult(
            tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None
        )


server = PagedServer("dynamic")


@server.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool called `name` and tell the client its tool list changed."""

    def added() -> str:
        return f"I am {name}"

    server.add_tool(added, name=name, description=f"Added at runtime: {name}")
    # 2026-07-28 clients hear of changes on their subscriptions/listen stream; older ones from the
    # notification (which the SDK drops on a 2026-07-28 connection).
    await ctx.notify_tools_changed()
    await ctx.request_context.session.send_tool_list_changed()
    return f"added {name}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()


@server.tool()
def header(name: str, ctx: Context) -> str:
    """The value of the HTTP request header `name` ("(none)" over stdio or when absent)."""
    return (ctx.headers or {}).get(name.lower(), "(none)")


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ToolError(reason)  # a ToolError's message reaches the client (others are hidden)


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--http":  # streamable HTTP on 127.0.0.1:PORT
        server.run("streamable-http", port=int(sys.argv[2]))
    else:
        server.run()
