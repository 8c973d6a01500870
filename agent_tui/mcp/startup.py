"""Before a request: give MCP servers that are still starting a moment, so their tools go with it.

A message typed right after launch would otherwise reach the model without the servers' tools (and
the model would say it has none). The wait is bounded by ``[mcp] startup_wait_s`` (default 5 s); a
server still starting after that joins later, and the user is told the request went without it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.plural import plural

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager


async def wait_for_servers(manager: McpManager) -> AsyncIterator[ev.Event]:
    """Wait (bounded) for the servers still starting; yields a notice if some are still not up."""
    late = await manager.wait_started(manager.startup_wait_s)
    if late:
        names = ", ".join(late)
        yield ev.Notice(
            f"{plural(len(late), 'MCP server')} still starting after "
            f"{manager.startup_wait_s:g} s ({names}): this request goes without "
            f"{'its' if len(late) == 1 else 'their'} tools.",
            "warning",
        )
