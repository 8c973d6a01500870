"""The conformance suite's client command for the ``/mcp login`` test (test_oauth_cli.py).

    python -m tests.mcp.conformance_slash <server-url>

Runs what the app runs: an McpManager starting the suite's protected server in the background,
the registered ``/mcp`` command (list, then ``login conf`` with ``$BROWSER`` set to
``tests/mcp/fake_browser.py``), then a tool call once the server has restarted. What it saw goes
to ``$LOGIN_E2E_DIR/slash.json`` for the test to check.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from agent_tui.commands.mcp_cmds import register_mcp_commands
from agent_tui.commands.registry import CommandRegistry
from agent_tui.mcp.config import load_servers
from agent_tui.mcp.manager import McpManager
from agent_tui.tools.registry import ToolRegistry


class Context:
    """The CommandContext the app gives a command (these actions use neither field)."""

    agent: Any = None
    interactive = True


async def run(url: str, out: Path) -> None:
    seen: dict[str, Any] = {}
    workspace = Path(os.environ["LOGIN_E2E_DIR"])
    servers = load_servers({"servers": {"conf": {"url": url}}}, workspace, trusted=False)
    manager = McpManager(servers, tools=ToolRegistry(), workspace=workspace, connect_timeout_s=20)
    commands = CommandRegistry()
    register_mcp_commands(commands, manager)
    command = commands.get("mcp")
    assert command is not None
    state = manager.servers["conf"]
    try:
        manager.start_all()
        await manager.wait_started(30)
        seen["before"] = [state.status, state.error]
        seen["list"] = (await command.handler(Context(), "list")).message
        seen["login"] = (await command.handler(Context(), "login conf")).message
        await manager.wait_for(lambda: state.status == "running", 30)
        outcome = await manager.call_tool("conf", "test-tool", {})
        seen["call"] = [part.text for part in outcome.parts]
    finally:
        seen.setdefault("after", [state.status, state.error])
        out.write_text(json.dumps(seen))
        await manager.aclose()


def main() -> None:
    asyncio.run(run(sys.argv[-1], Path(os.environ["LOGIN_E2E_DIR"]) / "slash.json"))


if __name__ == "__main__":
    main()
