"""A real MCP server (stdio, the SDK's MCPServer) that misbehaves on purpose (issue 15 §4, §5).

- ``hang``: never answers; when the client cancels it, it writes ``cancelled`` to ``$FAULT_LOG``.
- ``busy``: reports progress ``steps`` times, ``interval`` seconds apart, then answers ``done``.
- ``FAULT_START_DELAY`` (seconds): sleep before speaking at all (a slow-starting server).
- ``FAULT_TOOLS`` (N): register N more small tools ``t000``… (for the model's tool cap).
- ``fail``: always a tool error; ``crash``: the process exits.
- ``bad_structured``: declares an outputSchema and returns structuredContent that breaks it.
- ``structured``: returns valid structuredContent and a text summary.
- ``open_url``: asks the client, by URL-mode elicitation, to open a page; answers with the action.
- ``audio``: answers with a short WAV clip (and a caption when ``caption`` is given).
- a text resource stored as a base64 blob (``fault://notes``) and the server's ``instructions``
  (``$FAULT_INSTRUCTIONS``).
"""

import asyncio
import base64
import os
import sys
import time
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    AudioContent,
    CallToolResult,
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    ListToolsResult,
    TextContent,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

delay = float(os.environ.get("FAULT_START_DELAY", "0"))
if delay:
    time.sleep(delay)

SIGN_IN = "Sign in to the fault service"
SIGN_IN_URL = "https://example.test/signin?x=1"
COUNT_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer"}},
    "required": ["count"],
}


class FaultServer(MCPServer):
    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        # The SDK derives outputSchema from return types; bad_structured declares one by hand,
        # so what it returns can break it (the server does not check results it is handed).
        tools = await self.list_tools()
        for tool in tools:
            if tool.name == "bad_structured":
                tool.output_schema = COUNT_SCHEMA
        return ListToolsResult(tools=tools)


server = FaultServer("fault", instructions=os.environ.get("FAULT_INSTRUCTIONS") or None)


@server.tool()
async def hang() -> str:
    """Never answers."""
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        log = os.environ.get("FAULT_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as out:
                out.write("cancelled\n")
        raise
    return "unreachable"


@server.tool()
async def busy(steps: int, interval: float, ctx: Context) -> str:
    """Reports progress `steps` times, `interval` seconds apart, then answers."""
    for step in range(steps):
        await ctx.report_progress(step + 1, steps, f"step {step + 1} of {steps}")
        await asyncio.sleep(interval)
    return "done after all steps"


@server.tool(structured_output=False)
def bad_structured() -> CallToolResult:
    """Returns structuredContent that does not match its outputSchema."""
    return CallToolResult(
        content=[TextContent(type="text", text="count: many")],
        structured_content={"count": "many"},
    )


@server.tool()
def crash() -> str:
    """Exits the server process at once."""
    os._exit(3)


@server.tool()
def fail(reason: str) -> str:
    """Always fails with the given reason."""
    raise ToolError(reason)


@server.tool()
def structured(city: str) -> dict[str, Any]:
    """Returns a temperature as structuredContent."""
    return {"city": city, "celsius": 21}


@server.tool()
async def open_url(ctx: Context) -> str | InputRequiredResult:
    """Asks the user to open a page (URL-mode elicitation)."""
    answer = (ctx.input_responses or {}).get("signin")
    if isinstance(answer, ElicitResult):
        return f"url elicitation: {answer.action}"
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        # 2026-07-28 has no server-initiated requests: the question rides the result.
        params = ElicitRequestURLParams(message=SIGN_IN, url=SIGN_IN_URL)
        return InputRequiredResult(input_requests={"signin": ElicitRequest(params=params)})
    result = await ctx.elicit_url(SIGN_IN, SIGN_IN_URL, "elicit-1")
    return f"url elicitation: {result.action}"


# 1000 bytes of a WAV file's worth: only its size and type matter to the client.
CLIP = base64.b64encode(b"RIFF" + bytes(996)).decode()


@server.tool(structured_output=False)
def audio(caption: str = "") -> CallToolResult:
    """Answers with a short audio clip."""
    content: list[Any] = [TextContent(type="text", text=caption)] if caption else []
    content.append(AudioContent(type="audio", data=CLIP, mime_type="audio/wav"))
    return CallToolResult(content=content)


@server.resource("fault://notes", mime_type="text/markdown")
def notes() -> bytes:
    """A text file the server sends as a base64 blob."""
    return b"# Notes\nplain text from a blob\n"


for index in range(int(os.environ.get("FAULT_TOOLS", "0"))):

    def extra(index: int = index) -> str:
        return f"tool {index}"

    server.add_tool(extra, name=f"t{index:03d}", description=f"Extra tool {index}.")


if __name__ == "__main__":
    print("fault server ready", file=sys.stderr)
    server.run()
