"""Run a custom agent: a fresh conversation with its prompt, tools and model.

The sub-run is an ordinary :class:`Agent` sharing the parent's tools, approval engine, session
state and checkpoints, so a call that needs approval asks the user exactly like a top-level one.
Its events go to ``emit`` (wrapped in ``SubagentEvent``); the parent's loop forwards them into its
own stream, where the TUI or headless runner answers the questions they carry. Cancelling the
task that awaits :func:`run_subagent` cancels the sub-run.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.checkpoints.recorder import Checkpoints
from agent_tui.commands.registry import CommandRegistry
from agent_tui.errors import ApprovalRequired, ToolError
from agent_tui.participants.registry import Participant, ParticipantRegistry
from agent_tui.subagents.loader import CLAUDE_MODELS, RUN_AGENT, AgentSpec

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.config import ModelConfig
    from agent_tui.providers.base import Provider

AGENTS_KEY = "subagents"  # session.extras key: name -> AgentSpec
TODO = "todo"  # the tools/todo.json tool, kept from sub-agents (see child_tools)


class NestedCheckpoints(Checkpoints):
    """The parent's checkpoints as a sub-run sees them: its edits are snapshotted into the
    parent's turn (one /undo puts back the whole turn), and it neither starts nor ends a turn,
    which would file the parent's later edits nowhere."""

    def __init__(self, parent: Checkpoints) -> None:
        # The same folder and run: what it lists is the parent's (it records nothing itself).
        super().__init__(
            parent.workspace, parent.limits, root=parent.folder.parent, run_id=parent.run_id
        )
        self.parent = parent

    def begin_turn(self, index: int, prompt: str) -> None:
        pass

    def end_turn(self) -> None:
        pass

    def new_run(self) -> None:
        pass

    def around_call(
        self, manifest: Any, value: dict[str, Any], prepared: Any, files: Any = None
    ) -> Any:
        return self.parent.around_call(manifest, value, prepared, files)


def child_tools(parent: Agent, spec: AgentSpec) -> tuple[str, ...]:
    """The tools the sub-agent is offered: its list (or every enabled tool), never run_agent,
    nor todo (the list is the person's view of the main task; a sub-run would overwrite it)."""
    names = spec.tools if spec.tools is not None else [m.name for m in parent.deps.tools.enabled()]
    return tuple(n for n in names if n not in (RUN_AGENT, TODO) and n not in spec.disallowed)


async def run_subagent(
    parent: Agent, spec: AgentSpec, task: str, call_id: str, emit: Callable[[ev.Event], None]
) -> str:
    """Run ``spec`` on ``task``; returns its final answer.

    Raises:
        ToolError: the agent's model alias is unknown, or its turn ended with an error.
    """
    model, own_provider = _child_model(parent, spec)
    provider = parent.deps.provider if own_provider is None else own_provider
    child = _child_agent(parent, spec, model, provider)
    finished: ev.TurnFinished | None = None
    error = ""
    try:
        async for event in child.run(task):
            emit(ev.SubagentEvent(spec.name, call_id, event))
            if isinstance(event, ev.TurnFinished):
                finished = event
            elif isinstance(event, ev.ErrorEvent):
                error = event.message
                if event.exit_code == ApprovalRequired.exit_code:
                    # --on-approval fail stops the whole run, not just the sub-agent.
                    raise ApprovalRequired(event.message)
    finally:
        if own_provider is not None:
            await own_provider.aclose()
    if error:
        raise ToolError(f"agent {spec.name} stopped: {error}")
    answer = finished.text.strip() if finished is not None else ""
    return answer or f"agent {spec.name} finished without an answer."


def _child_model(parent: Agent, spec: AgentSpec) -> tuple[ModelConfig, Provider | None]:
    """The sub-agent's model, and its own provider when it is not the parent's (to close)."""
    models = parent.deps.config.models
    if spec.model in ("", "inherit") or (spec.model in CLAUDE_MODELS and spec.model not in models):
        return parent.model, None
    alias = models.get(spec.model)
    if alias is None:
        known = ", ".join(sorted(parent.deps.config.models)) or "none configured"
        raise ToolError(
            f"agent {spec.name} asks for model {spec.model!r}, which is not a [models.*] "
            f"alias (known: {known}); fix its file or use model: inherit"
        )
    from agent_tui.providers import make_provider

    return alias, make_provider(alias)


def _child_agent(parent: Agent, spec: AgentSpec, model: ModelConfig, provider: Provider) -> Agent:
    """An Agent for the sub-run: the parent's tools and approvals, its own conversation."""
    from agent_tui.agent.loop import Agent

    participants = ParticipantRegistry()
    participants.register(Participant("", spec.description, spec.prompt, child_tools(parent, spec)))
    # No slash commands: a task is text for the model, never /reset-confirmations or the like.
    deps = dataclasses.replace(
        parent.deps,
        provider=provider,
        participants=participants,
        commands=CommandRegistry(),
        checkpoints=None
        if parent.deps.checkpoints is None
        else NestedCheckpoints(parent.deps.checkpoints),
    )
    child = Agent(deps)
    child.model, child.max_rounds, child.interactive = model, parent.max_rounds, False
    child.sub_agent = True  # its messages are not the session's: the todo history is left alone
    child.budget, child.window_discovery = parent.budget, parent.window_discovery
    return child
