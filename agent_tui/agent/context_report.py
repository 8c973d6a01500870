"""What fills the context window (``/context``): the parts of the next request, in tokens.

The figures are the budget's own (``agent/prompt.py``'s chars/4 estimate, times the scale that
the prompt tokens the server reported have taught ``agent/budget.py``), so they add up to what
the budget prunes and compacts by. The system prompt is the default participant's, as the next
plain prompt would have it; tools are those offered to the model (built-in and MCP).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.agent.compaction.run import CompactionSettings
from agent_tui.agent.prompt import block_tokens
from agent_tui.conversation import (
    CHARS_PER_TOKEN,
    MESSAGE_OVERHEAD,
    SUMMARY_HEADER,
    Block,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    estimate_tokens,
)

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent


@dataclass(frozen=True)
class ContextPart:
    """One line of the context report: a part of the request and the tokens it takes."""

    group: str  # "system" | "tools" | "messages"
    label: str
    tokens: int


@dataclass(frozen=True)
class ContextReport:
    """The next request's parts and the window they are measured against.

    Args:
        parts: the estimate of each part, already scaled.
        scale: real tokens per estimated token, learnt from reported usage (1.0: none yet).
        window: the context window budgeted for.
        limit: what a request may hold (the window less the reply's share): pruning starts here.
        compact_at: where automatic compaction starts, in tokens (0: it is off).
    """

    parts: tuple[ContextPart, ...]
    scale: float
    window: int
    limit: int
    compact_at: int

    @property
    def total(self) -> int:
        return sum(part.tokens for part in self.parts)


def context_report(agent: Agent) -> ContextReport:
    """The parts of the request the next plain prompt would send, in tokens."""
    scale = agent.budget.token_scale.get(agent.model.name, 1.0)
    raw = [*_system_parts(agent), *_tool_parts(agent), *_message_parts(agent)]
    parts = tuple(ContextPart(p.group, p.label, int(p.tokens * scale)) for p in raw)
    limit = agent.budget.prompt_limit(agent.model)
    settings = CompactionSettings.from_config(agent.deps.config.raw)
    compact_at = int(limit * min(settings.compact_at, 1.0)) if settings.compact_at > 0 else 0
    return ContextReport(parts, scale, agent.budget.window(agent.model), limit, compact_at)


def _system_parts(agent: Agent) -> list[ContextPart]:
    from agent_tui.agent.instructions import base_prompt, environment_section, scan_instructions
    from agent_tui.agent.turn import server_instructions, skills_prompt

    deps = agent.deps
    files, _ = scan_instructions(deps.workspace, deps.config)
    names = ", ".join(f.path for f in files)
    skills, _ = skills_prompt(deps, None)
    texts = [
        ("base instructions and environment", base_prompt() + environment_section(deps.workspace)),
        (f"instructions files ({names})", "".join(f.text for f in files)),
        ("MCP server instructions", server_instructions(deps)),
        ("skills list", skills),
    ]
    return [ContextPart("system", label, estimate_tokens(text)) for label, text in texts if text]


def _tool_parts(agent: Agent) -> list[ContextPart]:
    """The schemas the next request offers (``toolsearch/``), by kind; the deferred counted."""
    from agent_tui.toolsearch.offer import DEFERRED_KEY
    from agent_tui.toolsearch.session import offer_for

    deps, model = agent.deps, agent.model
    window, local = agent.budget.window(model), agent.budget.local_server(model)
    specs = offer_for(deps.tools, deps.session, deps.config, None, window, local)
    deferred = len(deps.session.extras.get(DEFERRED_KEY, ()))
    chars = {"built-in": 0, "MCP": 0}
    count = {"built-in": 0, "MCP": 0}
    for spec in specs:
        kind = "MCP" if deps.tools.manifest(spec.name).source.startswith("mcp") else "built-in"
        chars[kind] += len(spec.description) + len(str(spec.input_schema))
        count[kind] += 1
    later = f"; {deferred} more found with tool_search" if deferred else ""
    return [
        ContextPart(
            "tools",
            f"{kind} tool schemas ({count[kind]}{later * (kind == 'built-in')})",
            -(-chars[kind] // CHARS_PER_TOKEN),
        )
        for kind in chars
        if count[kind]
    ]


def _message_parts(agent: Agent) -> list[ContextPart]:
    tokens = {"user": 0, "assistant": 0, "tool calls": 0, "tool results": 0, "summary": 0}
    messages = agent.conversation.messages
    for message in messages:
        tokens[message.role] += MESSAGE_OVERHEAD
        for block in message.content:
            tokens[_kind(message.role, block)] += block_tokens(block)
    labels = {
        "user": f"user messages ({sum(m.role == 'user' for m in messages)}, with attached files)",
        "assistant": "assistant answers",
        "tool calls": "tool calls",
        "tool results": "tool results",
        "summary": "summary of earlier turns (compaction)",
    }
    return [ContextPart("messages", labels[k], n) for k, n in tokens.items() if n]


def _kind(role: str, block: Block) -> str:
    if isinstance(block, ToolResultBlock):
        return "tool results"
    if isinstance(block, ToolUseBlock):
        return "tool calls"
    if isinstance(block, TextBlock) and block.text.startswith(SUMMARY_HEADER):
        return "summary"
    return role
