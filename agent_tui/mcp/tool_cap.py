"""Say which tools the 128-tool limit leaves out, instead of cutting the list silently.

A request carries at most ``MAX_TOOLS`` tools (``ToolRegistry.specs`` cuts the rest, in registration
order: built-ins first, then each server's tools as it connects). A few large servers go over it
easily (116 of 300 MCP tools offered), and the model then says a tool does not exist; so the user
is told which ones were left out and how to choose (``/tools``, ``[tools] disabled``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.plural import plural
from agent_tui.tools.registry import MAX_TOOLS

if TYPE_CHECKING:
    from agent_tui.tools.registry import ToolRegistry

MAX_NAMES = 30  # named in the notice; the rest are counted


def left_out(registry: ToolRegistry) -> list[str]:
    """The enabled tools past the limit (not sent to the model), in registration order."""
    return [manifest.name for manifest in registry.enabled()][MAX_TOOLS:]


def cap_notice(registry: ToolRegistry) -> str | None:
    """The notice for the tools left out, or None when every enabled tool is offered."""
    names = left_out(registry)
    if not names:
        return None
    shown = ", ".join(names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    total = len(names) + MAX_TOOLS
    return (
        f"{plural(len(names), 'tool')} of {total} not offered to the model (it takes at most "
        f"{MAX_TOOLS}): {shown}{more}. Choose with /tools or [tools] disabled in .agentrc."
    )
