"""A real MCP server (stdio, the SDK's MCPServer) that misbehaves on its stdout or stderr.

- ``NOISY_JUNK`` (N, default 0): print N lines that are not JSON-RPC to stdout before speaking
  (a server that logs to stdout, as many do by mistake).
- ``NOISY_EXIT`` (code): write ``NOISY_STDERR`` (default a few lines) to stderr and exit with
  that code before speaking at all (a server that cannot start).
- tool ``echo``: answers its ``text``.
"""

import os
import sys

from mcp.server.mcpserver import MCPServer

junk = int(os.environ.get("NOISY_JUNK", "0"))
for number in range(junk):
    print(f"starting up, step {number} (not JSON)", flush=True)
if "NOISY_EXIT" in os.environ:
    sys.stderr.write(os.environ.get("NOISY_STDERR", "loading config\nError: config file missing\n"))
    sys.stderr.flush()
    sys.exit(int(os.environ["NOISY_EXIT"]))

server = MCPServer("noisy")


@server.tool()
def echo(text: str) -> str:
    """Answer ``text`` back."""
    return text


if __name__ == "__main__":
    server.run()
