"""The ``run_agent`` tool: delegate a task to a custom agent and return its final answer."""

from __future__ import annotations

from typing import Any

from agent_tui.errors import ToolError
from agent_tui.subagents.loader import AgentSpec
from agent_tui.subagents.runner import AGENTS_KEY, run_subagent
from agent_tui.tools.base import BaseTool, Prepared, ToolContext, ToolResult


def _agents(ctx: ToolContext) -> dict[str, AgentSpec]:
    agents: dict[str, AgentSpec] = ctx.session.extras.get(AGENTS_KEY, {})
    return agents


class RunAgentTool(BaseTool):
    name = "run_agent"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        name = str(input.get("agent", ""))
        if name not in _agents(ctx):
            known = ", ".join(sorted(_agents(ctx))) or "none"
            raise ToolError(f"There is no agent named {name!r}. Available agents: {known}.")
        return Prepared(f"Running agent {name}", f"Agent {name} answered")

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        spec = _agents(ctx)[str(input["agent"])]
        if ctx.agent is None or ctx.on_event is None:
            raise ToolError("run_agent is not available here (agents cannot start agents).")
        answer = await run_subagent(ctx.agent, spec, str(input["task"]), ctx.call_id, ctx.on_event)
        return ToolResult(answer)
