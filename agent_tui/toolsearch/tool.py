"""``tool_search``: find deferred tools by the words of a query and load them for the session.

What the model reads back of a found tool is its name, where it comes from and the first line of
its description, control characters shown and cut to :data:`MAX_DESCRIPTION`: no more weight than
the same description has in the tool list, where its full schema arrives with the next request.
"""

from __future__ import annotations

from typing import Any

from agent_tui.errors import ToolError
from agent_tui.text_safety import one_line
from agent_tui.tools.base import BaseTool, Manifest, Prepared, ToolContext, ToolResult
from agent_tui.toolsearch.offer import DEFERRED_KEY, LOADED_KEY
from agent_tui.toolsearch.scoring import rank

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
MAX_DESCRIPTION = 200  # characters of a found tool's description in the result


def _query(input: dict[str, Any]) -> tuple[str, int]:
    query = input.get("query")
    if not isinstance(query, str) or not query.strip():
        raise ToolError("`query` is empty: give words for what the tool should do, or its name.")
    limit = input.get("limit", DEFAULT_LIMIT)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ToolError(f"`limit` must be a whole number from 1 to {MAX_LIMIT}.")
    return query.strip(), min(limit, MAX_LIMIT)


def describe(manifest: Manifest) -> str:
    """One line for a found tool: ``- name (MCP server x): what it does``."""
    where = manifest.source.removeprefix("mcp:")
    origin = f"MCP server {where}" if manifest.source.startswith("mcp:") else manifest.source
    first = next((line for line in manifest.model_description.splitlines() if line.strip()), "")
    text = one_line(first.strip())
    if len(text) > MAX_DESCRIPTION:
        text = text[: MAX_DESCRIPTION - 1] + "…"
    return f"- {manifest.name} ({one_line(origin)}): {text}"


class ToolSearchTool(BaseTool):
    """Load the deferred tools that best match the query."""

    name = "tool_search"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        query, _ = _query(input)
        shown = one_line(query)[:80]
        return Prepared(
            invocation_message=f"Searching tools for {shown!r}",
            past_tense_message=f"Searched tools for {shown!r}",
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query, limit = _query(input)
        deferred: tuple[Manifest, ...] = ctx.session.extras.get(DEFERRED_KEY, ())
        found = rank(query, deferred, limit)
        loaded: set[str] = ctx.session.extras.setdefault(LOADED_KEY, set())
        loaded.update(m.name for m in found)
        if not found:
            return ToolResult(
                f"No tool matches {one_line(query)[:80]!r} ({len(deferred)} can be loaded). "
                "Try other words: tools are found by their names, descriptions and parameters."
            )
        lines = "\n".join(describe(m) for m in found)
        return ToolResult(
            f"Loaded {len(found)} tool(s); call them from your next step:\n{lines}",
            data={"loaded": [m.name for m in found]},
        )
