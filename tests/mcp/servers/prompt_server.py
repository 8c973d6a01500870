"""A tiny real MCP server (stdio) with one prompt that counts how often it is fetched.

Each ``prompts/get`` of ``review`` appends a line to the file named by ``PROMPT_COUNT_FILE``, so a
test can tell how many requests one typed ``/mcp.SERVER.review`` sent.
"""

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("prompts")


@server.prompt()
def review(topic: str) -> str:
    """Ask for a review of `topic`."""
    with open(os.environ["PROMPT_COUNT_FILE"], "a", encoding="utf-8") as count:
        count.write(f"{topic}\n")
    return f"Please review {topic}."


if __name__ == "__main__":
    server.run()
