"""What the app shows of MCP servers as they start: a count in the status bar while any is still
starting (a request sent then waits for them, up to ``[mcp] startup_wait_s``), and, once none is,
a note naming the tools the 128-tool limit leaves out (each time that list changes), and one note
per server that wrote lines to stdout that are not JSON-RPC (the lines are in its log)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.mcp.tool_cap import cap_notice
from agent_tui.ui.widgets.notes import Note

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager
    from agent_tui.ui.app import AgentApp


def watch_mcp(app: AgentApp, manager: McpManager) -> None:
    """Keep the status bar's MCP count and the over-the-limit note in step with ``manager``."""
    shown: list[str | None] = [None]
    noisy: set[str] = set()  # servers whose stray stdout was already noted (one note each)

    def changed(_server: str) -> None:
        if app.tearing_down:  # servers stop after the app has gone
            return
        starting = len(manager.starting())
        app.status.mcp_starting = starting
        if starting:
            return  # one note when the servers have settled, not one per server
        notice = cap_notice(app.agent.deps.tools)
        if notice is not None and notice != shown[0]:
            shown[0] = notice
            app.call_later(app.transcript.add, Note(notice, "warning"))
        lines = manager.stray_output_notices(all_servers=True)
        for name, line in zip(manager.servers, lines, strict=True):
            if line and name not in noisy:
                noisy.add(name)
                app.call_later(app.transcript.add, Note(line, "warning"))

    manager.listeners.append(changed)
