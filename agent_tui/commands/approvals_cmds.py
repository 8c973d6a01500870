"""Slash commands for approvals and trust: /reset-confirmations, /approvals, /trust (DESIGN §5)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.actions import OpenApprovals, Trust
from agent_tui.approvals.cli_cmds import describe_reset, format_grants
from agent_tui.approvals.grants import RESET_SCOPES
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.approvals.trust import set_trusted, trust_answer
from agent_tui.commands.registry import CommandContext, CommandRegistry, CommandResult, SlashCommand


def _engine(ctx: CommandContext) -> ApprovalEngine:
    return ctx.agent.deps.approvals


async def reset_confirmations(ctx: CommandContext, args: str) -> CommandResult:
    """``/reset-confirmations [session|workspace|always|all]`` (default all)."""
    scope = args.strip() or "all"
    if scope not in RESET_SCOPES:
        return CommandResult(f"Unknown scope `{scope}`: use one of {', '.join(RESET_SCOPES)}.")
    removed = _engine(ctx).reset(scope)
    lines = [describe_reset(scope, removed), *(f"- {g.describe()}" for g in removed)]
    refused: list[str] = []
    mcp = ctx.agent.deps.mcp
    if scope in ("session", "all") and mcp is not None:
        # A sampling "no" lasts the session; forgetting the session's answers forgets it too.
        refused = sorted(mcp.hooks.sampling_denied)
        mcp.hooks.sampling_denied.clear()
    if refused:
        lines.append(
            f"MCP servers you refused the model this session will be asked again: "
            f"{', '.join(refused)}."
        )
    data = {"removed": [g.to_json() for g in removed], "sampling_refusals_cleared": refused}
    return CommandResult("\n".join(lines), data=data)


async def approvals(ctx: CommandContext, args: str) -> CommandResult:
    """``/approvals`` lists the grants that apply here; ``/approvals revoke ID|N`` revokes one."""
    words = args.split()
    store = _engine(ctx).grants
    if words[:1] == ["revoke"]:
        if len(words) != 2:
            return CommandResult("Usage: `/approvals revoke ID` (the id or # from `/approvals`).")
        revoked = store.revoke(words[1])
        if revoked is None:
            return CommandResult(f"No approval `{words[1]}` here; `/approvals` lists them.")
        return CommandResult(f"Revoked {revoked.describe()}.")
    if words:
        return CommandResult("Usage: `/approvals` or `/approvals revoke ID`.")
    grants = store.grants()
    return CommandResult(
        format_grants(grants, markdown=True) + "\n\nRevoke one with `/approvals revoke ID`.",
        action=OpenApprovals() if ctx.interactive else None,
        data={"grants": [g.to_json() for g in grants]},
    )


async def trust(ctx: CommandContext, args: str) -> CommandResult:
    """``/trust`` shows this folder's trust; ``/trust on|off`` changes it."""
    workspace = Path(ctx.agent.deps.workspace)
    state_dir = _engine(ctx).grants.path.parent
    choice = args.strip().lower()
    if choice in ("on", "yes", "true"):
        set_trusted(workspace, True, state_dir)
        return CommandResult(
            f"Trusted {workspace}: its .agentrc approval settings and MCP servers now apply.",
            action=Trust(True, str(workspace)),
        )
    if choice in ("off", "no", "false"):
        set_trusted(workspace, False, state_dir)
        return CommandResult(
            f"No longer trusting {workspace}: its .agentrc [tools] and [mcp] are ignored.",
            action=Trust(False, str(workspace)),
        )
    if choice:
        return CommandResult("Usage: `/trust`, `/trust on` or `/trust off`.")
    answer = trust_answer(workspace, state_dir)
    state = {True: "trusted", False: "not trusted", None: "not trusted (never asked)"}[answer]
    return CommandResult(f"{workspace} is {state}. Change it with `/trust on` or `/trust off`.")


def register_approval_commands(registry: CommandRegistry) -> None:
    """Add /reset-confirmations, /approvals and /trust to ``registry``."""
    registry.register(
        SlashCommand(
            "reset-confirmations",
            "Forget remembered tool approvals",
            reset_confirmations,
            args_hint="[session|workspace|always|all]",
        )
    )
    registry.register(
        SlashCommand(
            "approvals",
            "List remembered tool approvals, or revoke one",
            approvals,
            args_hint="[revoke ID]",
        )
    )
    registry.register(
        SlashCommand(
            "trust", "Show or change whether this folder is trusted", trust, args_hint="[on|off]"
        )
    )
