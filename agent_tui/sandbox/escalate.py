"""The second rung of the ladder: what the sandbox stopped becomes a question with the usual scopes.

After a sandboxed command, the executor hands its result here. When the sandbox stopped
something — a domain (the proxy refused it) or a write (outside the writable folders, or a
protected path) — the user is asked, as for any tool call: once / this session / this workspace /
always, or deny with a reason. A domain answer allows that domain (stored as a ``sandbox.network``
grant, which the proxy reads); a write answer runs the command outside the sandbox (stored as a
``sandbox.outside`` grant on the command, as terminal grants are). Either way the command runs
again; the model is told what was stopped, and what the user decided.

``--yolo`` approves tool calls, not leaving the sandbox: these questions are still asked (headless:
``--on-approval`` answers them, and its default on a pipe is deny).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from agent_tui import events as ev
from agent_tui.approvals.types import NETWORK_GRANT, OUTSIDE_GRANT, Decision, Scope, Verdict
from agent_tui.sandbox.blocked import Block
from agent_tui.tools.base import Confirmation, Prepared, ToolResult


@dataclass(frozen=True)
class Escalation:
    """What one run may do beyond the policy: run outside, or reach these domains."""

    outside: bool = False
    domains: tuple[str, ...] = ()


def blocks_of(result: ToolResult) -> list[Block]:
    raw = result.data.get("sandbox_blocks") or []
    return [Block(str(kind), str(target)) for kind, target in raw]


def question(
    call_id: str, value: dict[str, Any], blocks: list[Block], command_pattern: str | None
) -> ev.ApprovalRequested:
    """The approval event for what ``blocks`` say was stopped (its name is the grant's:
    ``sandbox.outside`` or ``sandbox.network``)."""
    writes = [b for b in blocks if b.kind != "network"]
    domains = [b.target for b in blocks if b.kind == "network"]
    stopped = "; ".join(b.describe() for b in blocks)
    command = str(value.get("command", ""))
    if writes:
        title = "Run this command outside the sandbox?"
        body = (
            f"{stopped}.\n\nAllowing runs the command **again, outside the sandbox**, with your "
            f"own access to files and network:\n\n```sh\n{command}\n```"
        )
        pattern = command_pattern
    else:
        title = f"Allow network access to {', '.join(domains)}?"
        body = (
            f"{stopped}.\n\nAllowing lets commands reach "
            f"{' and '.join(domains)} through the sandbox's proxy and runs this one again:"
            f"\n\n```sh\n{command}\n```"
        )
        pattern = "\n".join(domains)
    prepared = Prepared(
        invocation_message="Asking to go past the sandbox",
        past_tense_message="Asked to go past the sandbox",
        confirmation=Confirmation(title, body),
    )
    verdict = Verdict("ask", "sandbox", f"asked: {stopped}")
    future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
    # Named for the grant it may store, so the dialog offers that (a domain, this exact
    # command outside), not the terminal's prefix grants.
    grant = OUTSIDE_GRANT if writes else NETWORK_GRANT
    return ev.ApprovalRequested(call_id, grant, value, prepared, verdict, pattern, future)


async def escalate(
    result: ToolResult,
    *,
    call_id: str,
    name: str,
    value: dict[str, Any],
    emit: Callable[[ev.Event], None],
    grants: Any,
    command_pattern: str | None,
    run_again: Callable[[Escalation], Awaitable[ToolResult]],
) -> ToolResult:
    """Ask about what the sandbox stopped and, when allowed, run the call again.

    Args:
        result: the sandboxed run's result (its ``data["sandbox_blocks"]`` lists the stops).
        call_id: the tool call's id.
        name: the tool's name.
        value: its input.
        emit: where the question (and the decision) go.
        grants: the approval engine's GrantStore (lasting answers are stored there).
        command_pattern: what an outside grant covers: this exact command (``/^…$/``).
        run_again: runs the call once more with the given escalation.

    Returns:
        The result the model sees: the new run's, or the first with the user's answer added.
    """
    blocks = blocks_of(result)
    if not blocks:
        return result
    asked = question(call_id, value, blocks, command_pattern)
    emit(asked)
    decision = await asked.decision
    emit(ev.ToolCallDecided(call_id, decision.allow, "user", decision.describe()))
    outside = any(b.kind != "network" for b in blocks)
    if not decision.allow:
        said = f" Their reason: {decision.reason.strip()}" if decision.reason.strip() else ""
        note = (
            "The user declined to let it past the sandbox." + said + " Do not retry it the same "
            "way; work inside the workspace, or ask the user to run it themselves (!command)."
        )
        return replace(result, content=f"{result.content}\n{note}")
    if decision.scope is not Scope.ONCE:
        tool = OUTSIDE_GRANT if outside else NETWORK_GRANT
        for line in (decision.pattern or "").splitlines():
            if line.strip():
                grants.remember(decision.scope, tool, line.strip())
    domains = tuple(b.target for b in blocks if b.kind == "network")
    again = await run_again(Escalation(outside=outside, domains=() if outside else domains))
    how = "outside the sandbox" if outside else f"with {', '.join(domains)} allowed"
    return replace(again, content=f"Ran again {how}, as the user allowed.\n{again.content}")
