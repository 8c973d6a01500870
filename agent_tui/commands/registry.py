"""The slash-command registry: one record drives completion, /help and dispatch.

Built-ins, prompt files, participant commands and MCP prompts all register through ``register``.
A handler returns a ``CommandResult``: text to show, a prompt to send to the model, or a UI action
(``agent_tui.actions``: the app carries it out; ``-p`` refuses the app-only ones). The turn
planner (``agent.turn.plan_turn``) is the one place a command runs, for every front end.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.actions import UiAction
from agent_tui.hooks.agent_hooks import HookDeps

if TYPE_CHECKING:
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.checkpoints.recorder import Checkpoints
    from agent_tui.conversation import Conversation
    from agent_tui.lsp.manager import LspManager
    from agent_tui.mcp.manager import McpManager
    from agent_tui.participants.registry import ParticipantRegistry
    from agent_tui.providers.base import Provider
    from agent_tui.sandbox.runtime import Sandbox
    from agent_tui.sessions.writer import SessionRecorder
    from agent_tui.tools.registry import ToolRegistry


class CommandDeps(HookDeps, Protocol):
    """The session's parts a command reads (the hooks' config, workspace and session, and
    more); ``agent.loop.AgentDeps`` has them (the agent sits a layer above the registries, so
    commands see it through these Protocols)."""

    @property
    def tools(self) -> ToolRegistry: ...
    @property
    def approvals(self) -> ApprovalEngine: ...
    @property
    def commands(self) -> CommandRegistry: ...
    @property
    def participants(self) -> ParticipantRegistry: ...
    @property
    def mcp(self) -> McpManager | None: ...
    @property
    def sandbox(self) -> Sandbox | None: ...
    @property
    def lsp(self) -> LspManager | None: ...
    @property
    def checkpoints(self) -> Checkpoints | None: ...
    @property
    def provider(self) -> Provider: ...


class CommandAgent(Protocol):
    """What a command reads of the ``Agent``: its parts and the conversation."""

    @property
    def deps(self) -> CommandDeps: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def recorder(self) -> SessionRecorder | None: ...


class CommandContext(Protocol):
    """What a command handler may use; the turn planner provides one (``TurnCommandContext``)."""

    @property
    def agent(self) -> CommandAgent: ...

    @property
    def interactive(self) -> bool: ...


@dataclass(frozen=True)
class CommandResult:
    """What a command did.

    Args:
        message: Markdown to show the user (no model call), e.g. /help's table.
        prompt: text to send to the model as this turn's request (prompt files, /explain ...).
        action: what the front end should do (``agent_tui.actions``); ``-p`` refuses the
            app-only ones.
        data: extra values: a prompt file's routing (``participant``, ``tools``), what
            ``/approvals`` and ``/reset-confirmations`` list (stream-json carries them).
        events: work the agent runs as this turn, passing on its events (``/compact`` asks the
            model for a summary); the TUI and headless both run it through ``Agent.run``.
        emitted: events the command caused (e.g. ``CheckpointRestored``), yielded by the turn.
    """

    message: str = ""
    prompt: str | None = None
    action: UiAction | None = None
    data: dict[str, Any] = field(default_factory=dict)
    events: Callable[[], AsyncIterator[Any]] | None = None
    emitted: tuple[Any, ...] = ()  # agent_tui.events.Event


Handler = Callable[[CommandContext, str], Awaitable[CommandResult]]


@dataclass(frozen=True)
class SlashCommand:
    """A slash command: its name, help text, handler and where it comes from."""

    name: str  # without the slash: "help", "reset-confirmations", "mcp.everything.echo"
    description: str
    handler: Handler
    args_hint: str = ""
    source: str = "built-in"  # built-in | prompt-file | participant | mcp:<server> | user
    participant: str = ""  # "" = global; "workspace" for `@workspace /explain`
    interactive_only: bool = False


class CommandRegistry:
    def __init__(self) -> None:
        self._commands: dict[tuple[str, str], SlashCommand] = {}
        # Prompt files and [[participants]] entries skipped while loading, one line each; the app
        # shows them as notices at start, `-p` on stderr.
        self.notices: list[str] = []

    def register(self, command: SlashCommand) -> None:
        self._commands[(command.participant, command.name)] = command

    def unregister_source(self, source: str) -> None:
        for key in [k for k, c in self._commands.items() if c.source == source]:
            del self._commands[key]

    def get(self, name: str, participant: str = "") -> SlashCommand | None:
        return self._commands.get((participant, name))

    def all(self, participant: str | None = None) -> list[SlashCommand]:
        """Commands sorted by name; ``participant`` limits to one participant's ("" = global)."""
        found = [
            c
            for c in self._commands.values()
            if participant is None or c.participant == participant
        ]
        return sorted(found, key=lambda c: (c.participant, c.name))

    def complete(self, prefix: str, participant: str = "") -> list[SlashCommand]:
        return [c for c in self.all(participant) if c.name.startswith(prefix)]
