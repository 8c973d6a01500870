"""``/status``, ``/context`` and ``/cost``: where the session stands, as Markdown for every front
end (the app's card, ``-p``'s stdout, an ACP editor's chat); ``/cost``'s figures also go in the
command's ``data`` (stream-json's ``command_handled``).

Names and paths that come from the workspace, its config or an MCP server are shown with their
control characters made visible.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.commands.registry import (
    CommandContext,
    CommandResult,
    SlashCommand,
)
from agent_tui.plural import plural
from agent_tui.providers.base import Usage
from agent_tui.text_safety import visible

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent


def _agent(ctx: CommandContext, command: str) -> Agent:
    from agent_tui.agent.loop import Agent

    agent = ctx.agent
    if not isinstance(agent, Agent):  # the planner hands the Agent itself (TurnCommandContext)
        raise TypeError(f"/{command} needs the session's Agent, not {type(agent).__name__}")
    return agent


def _code(text: str) -> str:
    return "`" + visible(text).replace("`", "'") + "`"


def status_markdown(agent: Agent) -> str:
    """The ``/status`` text: model, endpoint, mode, sandbox, folders, session, MCP servers."""
    from agent_tui.config import endpoint_host

    deps = agent.deps
    model = agent.model
    endpoint = endpoint_host(model)
    lines = [
        "## Status",
        f"- **Model:** {_code(model.name)} ({model.provider})",
        f"- **Endpoint:** {_code(endpoint) if endpoint else 'the provider’s own API'}",
        f"- **Mode:** {deps.approvals.mode_word()}",
        f"- **Sandbox:** {_sandbox_line(agent)}",
        f"- **Workspace:** {_code(str(deps.workspace))}",
        f"- **Extra roots:** {_extra_roots(agent)}",
        *_session_lines(agent),
        *_mcp_lines(agent),
    ]
    return "\n".join(lines)


def _sandbox_line(agent: Agent) -> str:
    sandbox = agent.deps.sandbox
    if sandbox is None:
        return "none in this session (commands ask before they run)"
    label = sandbox.label().removeprefix("sandbox: ")
    notice = sandbox.notice()
    if notice is not None:
        return f"{label}: {visible(notice)}"
    works = "available" if sandbox.policy.enabled else "commands run as they are"
    return f"{label} ({works}; `/sandbox` for what it allows)"


def _extra_roots(agent: Agent) -> str:
    """Folders the tools may use besides the workspace (``--add-dir``, ``/add-dir``), and those
    only commands may write (``[sandbox] writable``)."""
    roots = agent.deps.session.extra_roots
    sandbox = agent.deps.sandbox
    writable = sandbox.policy.writable if sandbox is not None else ()
    others = [w for w in writable if w not in roots]
    shown = ", ".join(_code(str(root)) for root in roots) or "none"
    if others:
        shown += "; commands may also write " + ", ".join(_code(str(w)) for w in others)
    return shown


def _session_lines(agent: Agent) -> list[str]:
    recorder = agent.recorder
    if recorder is None:
        return ["- **Session:** not saved"]
    saved = "" if recorder.writer.started else " (nothing written yet)"
    return [
        f"- **Session:** {_code(recorder.session_id)}",
        f"- **Session file:** {_code(str(recorder.writer.path))}{saved}",
    ]


def _mcp_lines(agent: Agent) -> list[str]:
    mcp = agent.deps.mcp
    if mcp is None or not mcp.servers:
        return ["- **MCP servers:** none configured"]
    lines = ["- **MCP servers:**"]
    for name, state in mcp.servers.items():
        error = f": {visible(state.error)}" if state.status == "failed" and state.error else ""
        lines.append(
            f"  - {_code(name)}: {state.status}{error}, {plural(len(state.tools), 'tool')}"
        )
    return lines


def context_markdown(agent: Agent) -> str:
    """The ``/context`` text: what the next request holds, by part, and what is left."""
    from agent_tui.agent.context_report import context_report

    report = context_report(agent)
    lines = [
        "## Context",
        f"Model {_code(agent.model.name)}: a window of {report.window:,} tokens, of which a "
        f"request may hold {report.limit:,} (the rest is kept for the answer).",
        "",
        "| part | tokens | share |",
        "| --- | ---: | ---: |",
    ]
    for part in report.parts:
        share = 100 * part.tokens / report.limit if report.limit else 0
        lines.append(f"| {part.group}: {visible(part.label)} | {part.tokens:,} | {share:.1f}% |")
    total = report.total
    lines.append(f"| **total** | **{total:,}** | **{100 * total / max(report.limit, 1):.1f}%** |")
    lines += ["", _left_line(report.total, report.compact_at, report.limit)]
    if report.scale > 1.0:
        lines.append(
            f"Estimates are chars/4 times {report.scale:.2f}, learnt from the prompt tokens the "
            "server reported."
        )
    else:
        lines.append("Estimates are chars/4 (the server has not reported a larger count).")
    return "\n".join(lines)


def _left_line(total: int, compact_at: int, limit: int) -> str:
    if compact_at <= 0:
        return (
            f"Automatic compaction is off (`[agent] compact_at = 0`); {max(limit - total, 0):,} "
            "tokens are left before older turns are pruned."
        )
    if total >= compact_at:
        return (
            f"Past the compaction point ({compact_at:,} tokens): the next request compacts "
            "older turns first."
        )
    return (
        f"{compact_at - total:,} tokens are left before automatic compaction "
        f"(at {compact_at:,} tokens, `[agent] compact_at` of the request's share)."
    )


def cost_markdown(agent: Agent) -> str:
    """The ``/cost`` text: tokens in, out and cached, and money, for the session (its earlier runs
    included) and the last turn; and the lines its edits added and removed."""
    from agent_tui.agent.spend import spending

    spent = spending(agent)
    lines = [
        "## Cost",
        "| spent | input | output | cache read | cache write | cost |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
        _usage_row("session", spent.session, spent.session_usd),
        _usage_row("last turn", spent.turn, spent.turn_usd),
        "",
    ]
    if spent.session_usd is None:
        unpriced = _code(spent.model) if spent.turn_usd is None else "a model this session used"
        lines.append(f"No price is known for {unpriced}: tokens only.")
    else:
        lines.append("At list prices, each model's part at its own; cached tokens count as input.")
    lines.append(
        f"Edits: {spent.lines_added:,} lines added, {spent.lines_removed:,} removed "
        "(undone turns not counted)."
    )
    if spent.max_cost is not None:
        lines.append(f"Budget: `max_cost` ${spent.max_cost:g} for the session.")
    return "\n".join(lines)


def _usage_row(label: str, usage: Usage, usd: float | None) -> str:
    money = f"${usd:.4f}" if usd is not None else "—"
    return (
        f"| {label} | {usage.input_tokens:,} | {usage.output_tokens:,} | "
        f"{usage.cache_read_tokens:,} | {usage.cache_write_tokens:,} | {money} |"
    )


async def _status(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(message=status_markdown(_agent(ctx, "status")))


async def _context(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(message=context_markdown(_agent(ctx, "context")))


async def _cost(ctx: CommandContext, args: str) -> CommandResult:
    from agent_tui.agent.spend import spending

    agent = _agent(ctx, "cost")
    return CommandResult(message=cost_markdown(agent), data=spending(agent).to_json())


STATUS_COMMANDS = (
    SlashCommand(
        "status",
        "Show the model, endpoint, mode, sandbox, folders, session and MCP servers",
        _status,
    ),
    SlashCommand(
        "context",
        "Show what fills the context window, in tokens, and what is left before compaction",
        _context,
    ),
    SlashCommand(
        "cost", "Show the tokens, money and edited lines of the session and the last turn", _cost
    ),
)
