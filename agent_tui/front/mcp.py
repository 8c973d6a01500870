"""MCP servers as a front end sees them: their start-up status, the questions they ask the user
(forms, URLs, sampling consent, ``${input:ID}`` values), and suggestions for a prompt's arguments.

A front end that can ask gives its answerer once (``answer_with``); the door installs it on the
session's MCP manager, and again on a manager that trusting the folder creates later. Without
one, every question is declined (as under ``-p``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.errors import UsageError
from agent_tui.front.views import McpStatus

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.approvals.types import Decision
    from agent_tui.mcp.types import ElicitAnswer, InputSpec, SamplingRequest


class McpQuestions(Protocol):
    """How a front end answers the questions MCP servers ask (``mcp.types.McpHooks``)."""

    async def on_elicit(self, server: str, message: str, schema: dict[str, Any]) -> ElicitAnswer:
        """A form the server wants filled in (a JSON schema of flat fields)."""
        ...

    async def on_elicit_url(self, server: str, message: str, url: str) -> ElicitAnswer:
        """A URL the server wants the user to open."""
        ...

    async def ask_sampling(self, server: str, request: SamplingRequest) -> Decision:
        """May the server use the model for ``request``?"""
        ...

    async def ask_input(self, server: str, spec: InputSpec) -> str | None:
        """A ``${input:ID}`` value the server's config needs to start (None: not given)."""
        ...


class Mcp:
    """The session's MCP servers (``present`` is False when none is configured)."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent
        self._questions: McpQuestions | None = None

    @property
    def present(self) -> bool:
        return self._agent.deps.mcp is not None

    def status(self) -> McpStatus:
        """Servers still starting, the tools over the limit, servers with stray stdout."""
        from agent_tui.mcp.tool_cap import cap_notice

        manager = self._agent.deps.mcp
        if manager is None:
            return McpStatus(0, None, ())
        lines = manager.stray_output_notices(all_servers=True)  # one per server, in order
        stray = tuple((n, line) for n, line in zip(manager.servers, lines, strict=True) if line)
        return McpStatus(len(manager.starting()), cap_notice(self._agent.deps.tools), stray)

    def watch(self, changed: Callable[[McpStatus], None]) -> None:
        """Call ``changed`` with a fresh status whenever a server changes state."""
        manager = self._agent.deps.mcp
        if manager is not None:
            manager.listeners.append(lambda _server: changed(self.status()))

    def answer_with(self, questions: McpQuestions) -> None:
        """Answer the servers' questions with ``questions`` from now on."""
        self._questions = questions
        self.install()

    def install(self) -> None:
        """Put the answerer on the current manager (after trust may have created one)."""
        manager = self._agent.deps.mcp
        if manager is None or self._questions is None:
            return
        hooks = manager.hooks
        hooks.on_elicit = self._questions.on_elicit
        hooks.on_elicit_url = self._questions.on_elicit_url
        hooks.ask_sampling = self._questions.ask_sampling
        hooks.ask_input = self._questions.ask_input

    async def edit(self, words: tuple[str, ...]) -> list[str]:
        """``/mcp add NAME -- CMD…`` / ``--url URL``, ``add-json NAME JSON``, ``remove NAME``:
        change the ``.agentrc`` as ``agent-tui mcp add`` does, then reload the config so the
        server starts (or stops) in this session; returns what was done and what changed.

        Raises:
            AgentError: the words or the entry are refused (the file is untouched), or the
                reloaded config is invalid.
        """
        from agent_tui.build import apply_trust
        from agent_tui.mcp.edit_args import EDIT_COMMANDS, change, parse

        command, argv = (words[0], list(words[1:])) if words else ("", [])
        if command not in EDIT_COMMANDS:
            raise UsageError(f"/mcp edits with {', '.join(EDIT_COMMANDS)}, not {command!r}")
        config = self._agent.deps.config
        args = parse(command, argv, in_app=True)
        done = change(command, args, config.workspace)
        notes = await apply_trust(self._agent, config.trusted)  # the servers follow the file
        self.install()  # a manager created just now needs the front end's answerer
        if command != "remove" and args.scope == "workspace" and not config.trusted:
            notes.append("This folder is not trusted: its .agentrc servers start once it is.")
        return [done, *notes]

    async def complete_argument(self, command: str, argument: str, value: str) -> list[str]:
        """The server's suggestions for ``argument`` of ``/mcp.<server>.<prompt>`` ([] if none)."""
        from agent_tui.commands.mcp_cmds import complete_prompt_argument

        manager = self._agent.deps.mcp
        if manager is None:
            return []
        return await complete_prompt_argument(manager, command, argument, value)
