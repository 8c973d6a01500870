"""The front door: every user input enters the core here, for the app, ``-p`` and any front end.

``submit(agent, UserInput(text, images))`` yields the events of what the input asked for:

- ``!command`` (in an interactive session): the user's own shell command runs now
  (``UserShellStarted``/``UserShellFinished``); its output goes with the next prompt.
- anything else: one turn of ``Agent.run``, where ``agent.turn.plan_turn`` routes
  ``@participant``, runs ``/command`` (once), resolves ``#references`` and ``@mentions``.

Results and questions come back as events (``events.py``); a question carries a Future the front
end resolves. What a command asks the front end to do is an ``actions`` dataclass inside
``CommandHandled``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.conversation import ImageBlock
from agent_tui.errors import ToolError

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

SHELL_PREFIX = "!"


@dataclass(frozen=True)
class UserInput:
    """One thing the user sent: the text as typed and the images pasted with it."""

    text: str
    images: tuple[ImageBlock, ...] = ()

    @property
    def shell_command(self) -> str | None:
        """The command of a ``!command`` input, or None when the input is not one."""
        if not self.text.startswith(SHELL_PREFIX):
            return None
        return self.text[len(SHELL_PREFIX) :].strip() or None


async def submit(agent: Agent, request: UserInput) -> AsyncGenerator[ev.Event, None]:
    """Run ``request``, yielding its events (cancel the iterating task to cancel it).

    ``!command`` runs only when ``agent.interactive``: under ``-p`` nothing would ever send its
    output, so the text goes to the model as it is (as it always has).
    """
    command = request.shell_command if agent.interactive else None
    if command is None:
        # Closed here when the front end closes this one: the turn's cleanup runs at once.
        async with aclosing(agent.run(request.text, request.images)) as turn:
            async for event in turn:
                yield event
        return
    async for event in _user_shell(agent, command):
        yield event


async def _user_shell(agent: Agent, command: str) -> AsyncGenerator[ev.Event, None]:
    from agent_tui.agent.user_shell import run_user_command
    from agent_tui.tools.base import ToolContext

    deps = agent.deps
    context = ToolContext(deps.workspace, deps.session, deps.config, sandbox=deps.sandbox)
    yield ev.UserShellStarted(command)
    try:
        result = await run_user_command(context, command)
    except ToolError as exc:  # the shell could not start: say why, nothing is sent
        yield ev.UserShellFinished(command, f"not run: {exc}", "")
        return
    yield ev.UserShellFinished(command, result.status, result.output)


def startup_notices(agent: Agent) -> list[str]:
    """What a front end shows as it starts: prompt files and participants skipped, MCP config
    problems, a sandbox that was wanted but cannot run here (commands then ask)."""
    deps = agent.deps
    notices = list(deps.commands.notices)
    if deps.mcp is not None:
        notices.extend(deps.mcp.notices)
    if deps.sandbox is not None and (sandbox := deps.sandbox.notice()):
        notices.append(sandbox)
    return notices


def headless_warnings(agent: Agent) -> tuple[list[str], list[str], list[str]]:
    """What a headless run prints before its turn: warnings (what the approval settings let
    through: ``--yolo``, untrusted settings ignored), the endpoint requests leave for when it is
    not the provider's own, and the prompt files and participants that were skipped."""
    from agent_tui.config import endpoint_notice

    deps = agent.deps
    endpoint = [n for n in [endpoint_notice(deps.config)] if n is not None]
    return list(deps.approvals.warnings()), endpoint, list(deps.commands.notices)


def input_schema(agent: Agent, name: str) -> dict[str, object] | None:
    """The input schema of the tool ``name`` (None: not a tool, e.g. a sandbox question, which is
    named for its grant and has no input to edit)."""
    tools = agent.deps.tools
    return tools.manifest(name).input_schema if name in tools else None


def session_id(agent: Agent) -> str:
    """The id of the session the agent saves to ("" when it saves none)."""
    return agent.recorder.session_id if agent.recorder is not None else ""
