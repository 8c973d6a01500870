"""The agent loop: a turn is rounds of (stream from the model -> run its tool calls) (DESIGN §2).

``Agent.run(text)`` yields events from ``events.py``. Stop conditions are exceptions carrying a
message; the one broad catch is at the top of a turn. However a turn ends (done, error, cancel),
every tool call in the conversation has a result, so the next request is valid.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.agent.assemble import RoundAssembler
from agent_tui.agent.call_progress import CallProgress
from agent_tui.agent.conversation import (
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from agent_tui.agent.execute import CallProcessor
from agent_tui.agent.pricing import add_usage, cost_usd
from agent_tui.agent.references import ReferenceRegistry, builtin_reference_registry
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.commands.registry import CommandRegistry
from agent_tui.config import Config, ModelConfig
from agent_tui.errors import AgentError, RoundLimitReached, StreamInterrupted
from agent_tui.participants.registry import ParticipantRegistry
from agent_tui.providers import base as pv
from agent_tui.providers.base import Provider, ProviderRequest, Usage
from agent_tui.tools.base import SessionState
from agent_tui.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.agent.assemble import RawCall
    from agent_tui.agent.turn import TurnPlan

logger = logging.getLogger(__name__)

CANCELLED_RESULT = "The user cancelled this tool call before it finished; it may not have run."
DEFAULT_CONTEXT_WINDOW = 200_000


@dataclass
class AgentDeps:
    config: Config
    provider: Provider
    tools: ToolRegistry
    approvals: ApprovalEngine
    workspace: Path
    session: SessionState
    commands: CommandRegistry
    participants: ParticipantRegistry
    references: ReferenceRegistry = field(default_factory=builtin_reference_registry)
    mcp: Any = None  # agent_tui.mcp.manager.McpManager, or None when no server is configured


@dataclass
class _TurnState:
    rounds: int = 0
    usage: Usage = field(default_factory=Usage)
    final_text: str = ""
    stop_reason: str = ""
    called_tools: bool = False
    round_limit: int = 25


class Agent:
    """One chat session: the conversation, the model and the tools."""

    def __init__(self, deps: AgentDeps) -> None:
        self.deps = deps
        self.conversation = Conversation()
        self.total_usage = Usage()
        self.model: ModelConfig = deps.config.model
        self.max_rounds = deps.config.max_rounds
        # False under -p: commands that only make sense in the app are refused, not ignored.
        self.interactive = True

    def start(self) -> None:
        """Start background services (MCP servers); call inside the running event loop."""
        if self.deps.mcp is not None:
            self.deps.mcp.start_all()

    async def wait_ready(self) -> list[str]:
        """Wait until MCP servers have started or failed (headless: before the first turn).

        Returns:
            Notices for the user: servers that failed, workspace servers not started (untrusted).
        """
        mcp = self.deps.mcp
        if mcp is None:
            return []
        await mcp.wait_started()
        failed = [
            f"MCP server {name} failed: {state.error}"
            for name, state in mcp.servers.items()
            if state.status == "failed"
        ]
        return [*mcp.notices, *failed]

    async def aclose(self) -> None:
        """Stop MCP servers, background terminals and the provider's connections."""
        if self.deps.mcp is not None:
            await self.deps.mcp.aclose()
        terminals = self.deps.session.extras.get("terminals")
        if terminals is not None:
            await terminals.aclose()
        await self.deps.provider.aclose()

    def reset(self) -> None:
        """Start a new conversation (``/clear``, ``/new``); grants and tools stay."""
        self.conversation.clear()

    async def set_model(self, model: ModelConfig, provider: Provider) -> None:
        """Switch model (``/model``): MCP sampling follows, and the old connection is closed."""
        old = self.deps.provider
        self.model = model
        self.deps.provider = provider
        if self.deps.mcp is not None:
            from agent_tui.mcp.session import complete_with

            self.deps.mcp.hooks.complete = complete_with(provider, model.name)
            self.deps.mcp.hooks.model_name = model.name
        if old is not provider:
            await old.aclose()

    async def run(self, text: str) -> AsyncIterator[ev.Event]:
        """Run one user turn, yielding its events.

        Cancel the task that iterates this generator to cancel the turn: the conversation is
        left valid (a partial answer is kept, unanswered tool calls get a "cancelled" result).
        """
        from agent_tui.agent.turn import plan_turn

        state = _TurnState(round_limit=self.max_rounds)
        try:
            plan = await plan_turn(self, text)
        except AgentError as exc:
            yield ev.ErrorEvent(str(exc), exit_code=exc.exit_code)
            return
        except Exception as exc:  # a bug in parsing input must not kill the session either
            logger.exception("planning the turn failed")
            yield ev.ErrorEvent(f"internal error: {type(exc).__name__}: {exc}")
            return
        if plan.local_result is not None:
            result = plan.local_result
            yield ev.CommandHandled(plan.command, result.message, result.action, dict(result.data))
            yield ev.TurnFinished("", "local_command", 0, Usage())
            return
        yield ev.TurnStarted(
            plan.text, plan.participant, plan.command, tuple(r.label for r in plan.references)
        )
        current: Message | None = Message("user", [TextBlock(plan.text)])
        cancelled = True
        try:
            while True:
                if state.rounds >= state.round_limit:
                    async for event in self._round_limit(state):
                        yield event
                state.rounds += 1
                async for event in self._round(plan, current, state):
                    yield event
                current = None
                if not state.called_tools:
                    break  # the model answered without calling tools: the turn is done
            cancelled = False
        except AgentError as exc:
            cancelled = False
            logger.warning("turn ended with %s: %s", type(exc).__name__, exc)
            partial = exc.partial_text if isinstance(exc, StreamInterrupted) else ""
            retry = (
                " (send your message again to retry)" if getattr(exc, "retryable", False) else ""
            )
            yield ev.ErrorEvent(
                f"{exc}{retry}", getattr(exc, "retryable", False), partial, exc.exit_code
            )
        except Exception as exc:  # the one broad catch: a bug must not kill the session
            cancelled = False
            logger.exception("turn failed")
            yield ev.ErrorEvent(f"internal error: {type(exc).__name__}: {exc}")
        finally:
            self._answer_unanswered()
        yield ev.TurnFinished(
            state.final_text, state.stop_reason or "error", state.rounds, state.usage, cancelled
        )

    async def _round_limit(self, state: _TurnState) -> AsyncIterator[ev.Event]:
        proceed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        yield ev.RoundLimitHit(state.rounds, proceed)
        if not await proceed:
            raise RoundLimitReached(
                f"stopped after {state.rounds} rounds (the round limit); "
                "raise it with --max-turns or agent.max_rounds"
            )
        state.round_limit += self.max_rounds  # for this turn only; the next starts afresh

    async def _round(
        self, plan: TurnPlan, current: Message | None, state: _TurnState
    ) -> AsyncIterator[ev.Event]:
        from agent_tui.agent.prompt import build_followup_prompt, build_prompt
        from agent_tui.agent.pruned_outputs import forget_pruned_outputs

        specs = self.deps.tools.specs(plan.tool_names)
        tools_chars = sum(len(s.description) + len(str(s.input_schema)) for s in specs)
        window = self.model.context_window or DEFAULT_CONTEXT_WINDOW
        reply = self.model.max_tokens
        if current is not None:
            built = build_prompt(
                plan.system_prompt,
                list(self.conversation.messages),
                current,
                plan.references,
                context_window=window,
                reply_budget=reply,
                tools_chars=tools_chars,
            )
            if built.dropped or built.shrunk:
                yield ev.ContextPruned(built.dropped, built.shrunk)
            # Store the request as sent (references attached) so later rounds and turns see it.
            self.conversation.append_user(built.messages[-1])
        else:
            built = build_followup_prompt(
                plan.system_prompt,
                list(self.conversation.messages),
                context_window=window,
                reply_budget=reply,
                tools_chars=tools_chars,
            )
        messages = built.messages
        forget_pruned_outputs(self.conversation, messages)  # what no request carries, let go
        request = ProviderRequest(
            model=self.model.name,
            system=built.system,
            messages=messages,
            tools=specs,
            max_tokens=self.model.max_tokens,
            temperature=self.model.temperature,
            thinking_budget=self.model.thinking_budget,
            reasoning_effort=self.model.reasoning_effort,
        )
        assembler = RoundAssembler()
        progress = CallProgress()
        try:
            async for pev in self.deps.provider.stream(request):
                assembler.feed(pev)
                if isinstance(pev, pv.TextDelta):
                    yield ev.TextDelta(pev.text)
                elif isinstance(pev, pv.ThinkingDelta) and pev.text:
                    yield ev.ThinkingDelta(pev.text)
                elif (streaming := progress.feed(pev)) is not None:
                    yield streaming
        except BaseException:
            # Keep what arrived (not the half-made tool calls) so the user can read and retry.
            if assembler.text or assembler.thoughts:
                self.conversation.append(assembler.message(None))
            raise
        state.usage = add_usage(state.usage, assembler.usage)
        self.total_usage = add_usage(self.total_usage, assembler.usage)
        yield ev.UsageUpdated(
            assembler.usage, self.total_usage, cost_usd(self.model.name, self.total_usage)
        )
        state.stop_reason = assembler.stop_reason or "end_turn"
        calls = assembler.finished_calls()
        state.called_tools = bool(calls)
        self.conversation.append(assembler.message(calls))
        if assembler.text:
            state.final_text = assembler.partial_text
            yield ev.AssistantMessage(assembler.partial_text, state.rounds)
        if not calls:
            return
        async for event in self._run_calls(plan, calls):
            yield event

    async def _run_calls(self, plan: TurnPlan, calls: list[RawCall]) -> AsyncIterator[ev.Event]:
        queue: asyncio.Queue[ev.Event | None] = asyncio.Queue()
        processor = CallProcessor(self.deps, plan.tool_names, queue.put_nowait)

        async def work() -> None:
            try:
                await processor.run(calls)
            finally:
                queue.put_nowait(None)

        task = asyncio.create_task(work())
        try:
            while (event := await queue.get()) is not None:
                yield event
            await task  # re-raises an AgentError from an approval (e.g. --on-approval fail)
        finally:
            if not task.done():
                task.cancel()
            # Results in call order, edited inputs included; missing ones are filled on cancel.
            blocks = [
                ToolResultBlock(
                    c.id, processor.results[c.id].content, processor.results[c.id].is_error
                )
                for c in calls
                if c.id in processor.results
            ]
            if processor.edited:
                self._record_edited_inputs(processor.edited)
            if blocks:
                self.conversation.append_user(Message("user", list(blocks)))

    def _record_edited_inputs(self, edited: dict[str, dict[str, Any]]) -> None:
        """Show the model the input that ran: the user's edit replaces the model's in history."""
        message = self.conversation.messages[-1]
        message.content = [
            ToolUseBlock(b.id, b.name, edited[b.id])
            if isinstance(b, ToolUseBlock) and b.id in edited
            else b
            for b in message.content
        ]

    def _answer_unanswered(self) -> None:
        """Give every tool call without a result a 'cancelled' result (keeps the API happy)."""
        answered = {
            b.tool_use_id
            for m in self.conversation.messages
            if m.role == "user"
            for b in m.content
            if isinstance(b, ToolResultBlock)
        }
        missing = [
            ToolResultBlock(b.id, CANCELLED_RESULT, True)
            for m in self.conversation.messages
            if m.role == "assistant"
            for b in m.tool_uses
            if b.id not in answered
        ]
        if missing:
            self.conversation.append_user(Message("user", list(missing)))
