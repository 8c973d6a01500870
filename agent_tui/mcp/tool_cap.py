"""Say what happens to the tools past the 128 a request may carry, instead of cutting silently.

A request carries at most ``MAX_TOOLS`` tools. A few large servers go over it easily; the model
then finds the others with ``tool_search`` (``toolsearch/``), which this notice says. With
``tool_search`` disabled, the tools past the limit (in registration order: built-ins first, then
each server's as it connects) are not offered at all, and the notice names them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.plural import plural
from agent_tui.tools.registry import MAX_TOOLS
from agent_tui.toolsearch.offer import TOOL_SEARCH

if TYPE_CHECKING:
    from agent_tui.tools.registry import ToolRegistry

MAX_NAMES = 30  # named in the notice; the rest are counted


def left_out(registry: ToolRegistry) -> list[str]:
    """The enabled tools no request can offer (past the limit, with tool_search disabled)."""
    names = [manifest.name for manifest in registry.enabled()]
    return [] if TOOL_SEARCH in names else names[MAX_TOOLS:]


def cap_notice(registry: ToolRegistry) -> str | None:
    """The notice for the tools past the limit, or None when every enabled tool fits."""
    enabled = len(registry.enabled())
    if enabled <= MAX_TOOLS:
        return None
    names = left_out(registry)
    if not names:
        return (
            f"{enabled} tools are enabled, more than a request carries ({MAX_TOOLS}): the model "
            "is offered the core tools and finds the others with tool_search."
        )
    shown = ", ".join(names[:MAX_NAMES])
    more = f" and {len(names) - MAX_NAMES} more" if len(names) > MAX_NAMES else ""
    return (
        f"{plural(len(names), 'tool')} of {enabled} not offered to the model (it takes at most "
        f"{MAX_TOOLS}, and tool_search is off): {shown}{more}. Choose with /tools or "
        "[tools] disabled in .agentrc."
    )
