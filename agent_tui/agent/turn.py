"""Plan one user turn: route ``@participant``, run ``/command``, resolve ``#references`` (DESIGN §6).

``plan_turn`` turns the raw input into a :class:`TurnPlan`: the text for the model, the system prompt,
the tools to offer and the attached references, or a ``local_result`` when a command is answered
without the model (/help, /clear ...). Every error a user can fix (unknown ``@name`` or ``/command``,
a missing ``#file``) is raised here as ``UsageError``, before anything is sent.

This is the one place a slash command runs, for every front end (``Agent.run`` calls
``plan_events``); a command's missing arguments are asked as a ``PromptArgumentsRequested`` event.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.agent.instructions import compose_system_prompt, scan_instructions
from agent_tui.agent.mentions import names_workspace_file, resolve_mentions, shadowed_file_notice
from agent_tui.agent.references import (
    Reference,
    ReferenceContext,
    ReferenceRegistry,
    builtin_reference_registry,
    find_tokens,
)
from agent_tui.agent.user_shell import take_pending
from agent_tui.commands.registry import CommandAgent, CommandRegistry, CommandResult
from agent_tui.errors import AgentError, UsageError
from agent_tui.participants.registry import Participant, ParticipantRegistry
from agent_tui.tools.base import ToolContext
from agent_tui.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent, AgentDeps

__all__ = [
    "Reference",
    "TurnCommandContext",
    "TurnPlan",
    "plan_events",
    "plan_turn",
    "resolve_tool_names",
]

logger = logging.getLogger(__name__)

_PARTICIPANT = re.compile(r"^@([A-Za-z][\w-]*)(?:\s+|$)")
# "/usr/bin/env is broken" is text, not a command: the name must end at whitespace or the end.
_COMMAND = re.compile(r"^/([A-Za-z][\w.-]*)(?:\s+|$)")


@dataclass(frozen=True)
class TurnPlan:
    """What one turn will send (or the result of a command answered locally).

    Args:
        text: the user message after parsing (@participant removed, /command expanded).
        system_prompt: base + instructions files + participant prompt (+ tool hints).
        tool_names: None = every enabled tool; else only these (intersect with the enabled ones).
        references: the attachments, in the order they appear in the text.
        participant: "" for the default agent.
        command: the slash command's name, if one was used.
        local_result: set when a command was handled without the model; nothing is sent.
        notices: things the user should see before the answer (a workspace file not read because
            it leads outside the workspace), each once per session.
    """

    text: str
    system_prompt: str
    tool_names: tuple[str, ...] | None
    references: tuple[Reference, ...] = ()
    participant: str = ""
    command: str = ""
    local_result: CommandResult | None = None
    notices: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnCommandContext:
    """The CommandContext plan_turn hands to command handlers."""

    agent: Agent
    interactive: bool = True


@cache
def _default_reference_registry() -> ReferenceRegistry:
    return builtin_reference_registry()


def reference_registry(agent: CommandAgent) -> ReferenceRegistry:
    """The agent's reference kinds (``deps.references`` if the loop provides one, else built-ins)."""
    registry = getattr(agent.deps, "references", None)
    return registry if isinstance(registry, ReferenceRegistry) else _default_reference_registry()


def resolve_tool_names(tools: ToolRegistry, entries: Iterable[str]) -> tuple[str, ...]:
    """Expand tool names and ``tag:<tag>`` entries into tool names, in the order given.

    Names not (yet) registered are kept: an MCP server may connect later, and the registry's
    ``enabled(only=...)`` drops names it does not know.
    """
    names: list[str] = []
    for entry in entries:
        if entry.startswith("tag:"):
            tag = entry.removeprefix("tag:")
            names.extend(m.name for m in tools.manifests() if tag in m.tags)
        else:
            manifest = tools.by_reference_name(entry)
            names.append(manifest.name if manifest else entry)
    return tuple(dict.fromkeys(names))


def _split_participant(
    text: str, participants: ParticipantRegistry, context: ReferenceContext
) -> tuple[Participant, str]:
    match = _PARTICIPANT.match(text)
    if match is None:
        return _participant(participants, ""), text
    name = match.group(1)
    if participants.get(name) is None and names_workspace_file(context, name):
        return _participant(participants, ""), text  # "@Makefile": a file mention, kept in the text
    return _participant(participants, name), text[match.end() :]


def _reference_context(agent: Agent) -> ReferenceContext:
    deps = agent.deps
    return ReferenceContext(
        deps.workspace, deps.session, ToolContext(deps.workspace, deps.session, deps.config)
    )


def _participant(participants: ParticipantRegistry, name: str) -> Participant:
    found = participants.get(name)
    if found is not None:
        return found
    if name == "":  # a registry without a default entry still has the default agent
        return Participant("", "the default agent")
    known = ", ".join(f"@{p.name}" for p in participants.all() if p.name) or "none"
    raise UsageError(f"unknown participant @{name}; known participants: {known}")


def _unknown_command(name: str, participant: str, commands: CommandRegistry) -> UsageError:
    owners = [c.participant for c in commands.all() if c.name == name and c.participant]
    if owners:
        hint = " or ".join(f"@{owner} /{name}" for owner in owners)
        return UsageError(f"/{name} belongs to a participant: write {hint}")
    where = f"@{participant}" if participant else "the default agent"
    known = ", ".join(f"/{c.name}" for c in commands.all(participant)) or "none"
    return UsageError(f"unknown command /{name} for {where}; see /help (known: {known})")


async def _resolve_references(
    agent: Agent, text: str, tool_names: tuple[str, ...] | None, participant: str
) -> tuple[list[Reference], list[str]]:
    """Resolve every ``#token`` in text; return the references and the tool names hinted at."""
    deps = agent.deps
    kinds = reference_registry(agent)
    context = _reference_context(agent)
    references: list[Reference] = []
    hints: list[str] = []
    for token in find_tokens(text):
        kind = kinds.get(token.name)
        if kind is not None:
            references.append(await kind.resolve(context, token.arg))
            continue
        manifest = deps.tools.by_reference_name(token.name)
        if manifest is None:
            continue  # "#123", "#define": ordinary text
        if manifest.name in deps.tools.disabled:
            raise UsageError(
                f"#{token.name}: the tool {manifest.name} is disabled; enable it in /tools"
            )
        if tool_names is not None and manifest.name not in tool_names:
            raise UsageError(
                f"#{token.name}: @{participant} cannot use {manifest.name} "
                f"(its tools: {', '.join(tool_names)})"
            )
        hints.append(manifest.name)
        references.append(Reference("tool", f"#{token.name}", ""))
    references += await resolve_mentions(context, text)
    unique = {ref.label: ref for ref in references}  # the same #file twice is attached once
    return list(unique.values()), list(dict.fromkeys(hints))


async def _run_command(
    agent: Agent, participant: Participant, name: str, args: str
) -> TurnPlan | tuple[str, Participant, list[str] | None]:
    """Run ``/name args``: a plan answered without the model, or the prompt it expands to with
    the participant it routes to and the tools it narrows to (a prompt file's front matter).

    Raises:
        UsageError: no such command, or one that works only in the app under ``-p``.
    """
    deps = agent.deps
    command = deps.commands.get(name, participant.name) or deps.commands.get(name, "")
    if command is None:
        raise _unknown_command(name, participant.name, deps.commands)
    interactive = bool(getattr(agent, "interactive", True))
    if command.interactive_only and not interactive:
        raise UsageError(f"/{name} works only in the app (run agent-tui without -p)")
    result = await command.handler(TurnCommandContext(agent, interactive), args)
    if result.action is not None and result.action.app_only and not interactive:
        raise UsageError(f"/{name} works only in the app (run agent-tui without -p)")
    if result.prompt is None:
        return TurnPlan("", "", None, (), participant.name, name, local_result=result)
    routed = str(result.data.get("participant") or "")
    if routed and not participant.name:
        participant = _participant(deps.participants, routed)
    tools = result.data.get("tools")
    return result.prompt, participant, (list(tools) if tools is not None else None)


def _system_prompt(
    deps: AgentDeps,
    participant: Participant,
    hints: tuple[str, ...],
    tool_names: tuple[str, ...] | None,
) -> tuple[str, tuple[str, ...]]:
    """The turn's system prompt, and the notices (skipped instructions, skills) not yet shown."""
    instructions, skipped = scan_instructions(deps.workspace, deps.config)
    skills, skill_notices = skills_prompt(deps, tool_names)
    system = compose_system_prompt(
        deps.workspace,
        deps.config,
        participant_prompt=participant.prompt,
        tool_hints=hints,
        instructions=instructions,
        server_instructions=server_instructions(deps),
        skills=skills,
    )
    shown: set[str] = deps.session.extras.setdefault("notices_shown", set())
    notices = tuple(n for n in [*skipped, *skill_notices] if n not in shown)
    shown.update(notices)
    return system, notices


async def plan_turn(agent: Agent, text: str) -> TurnPlan:
    """Parse one user input into a plan for the turn.

    Args:
        agent: the Agent (uses ``agent.deps``: config, workspace, tools, commands, participants,
            session).
        text: the raw input, e.g. ``"@workspace /explain #file:app.py:1-20 the loader"``.

    Returns:
        The plan; ``local_result`` is set when a command was answered without the model.

    Raises:
        UsageError: unknown ``@participant`` or ``/command``, a reference that cannot be resolved
            (missing file, not a git repo, no terminal command yet), or nothing left to send.
    """
    deps = agent.deps
    context = _reference_context(agent)
    participant, rest = _split_participant(text.strip(), deps.participants, context)
    shadowed = shadowed_file_notice(context, participant.name) if participant.name else ""
    command_name = ""
    tools_override: list[str] | None = None
    match = _COMMAND.match(rest)
    if match is not None:
        command_name = match.group(1)
        expanded = await _run_command(agent, participant, command_name, rest[match.end() :].strip())
        if isinstance(expanded, TurnPlan):
            return expanded
        rest, participant, tools_override = expanded
    tool_names = _offered_tools(deps, participant, tools_override)
    references, hints = await _resolve_references(agent, rest, tool_names, participant.name)
    if not rest.strip():
        raise _nothing_to_send(participant.name, command_name)
    system, notices = _system_prompt(deps, participant, tuple(hints), tool_names)
    notices += (shadowed,) * bool(shadowed)
    ran = take_pending(deps.session)  # `!command` output the user ran since the last prompt
    return TurnPlan(
        text=rest.strip(),
        system_prompt=system,
        tool_names=tool_names,
        references=(*ran, *references),
        participant=participant.name,
        command=command_name,
        notices=notices,
    )


def _offered_tools(
    deps: AgentDeps, participant: Participant, tools_override: list[str] | None
) -> tuple[str, ...] | None:
    """The participant's tools (None: all), narrowed by a command's ``tools``."""
    tool_names = (
        resolve_tool_names(deps.tools, participant.tools) if participant.tools is not None else None
    )
    if tools_override is not None:
        narrowed = resolve_tool_names(deps.tools, tools_override)
        tool_names = tuple(n for n in narrowed if tool_names is None or n in tool_names)
    return tool_names


def _nothing_to_send(participant: str, command: str) -> UsageError:
    typed = [f"@{participant}" * bool(participant), f"/{command}" * bool(command)]
    after = " ".join(word for word in typed if word)
    return UsageError(
        f"nothing to send: write a request after {after}" if after else "nothing to send"
    )


async def plan_events(agent: Agent, text: str, plans: list[TurnPlan]) -> AsyncIterator[ev.Event]:
    """Plan the turn for ``text``, yielding what the user must see or answer meanwhile.

    The plan is appended to ``plans``; none is when planning failed (an ``ErrorEvent`` says why).
    A command lacking required arguments (an MCP prompt) is asked about with a
    ``PromptArgumentsRequested`` event in the app, then run once more with them.
    """
    while True:
        try:
            plans.append(await plan_turn(agent, text))
            return
        except AgentError as exc:
            from agent_tui.mcp.prompts import MissingPromptArguments, appended_arguments

            values = None
            if isinstance(exc, MissingPromptArguments) and agent.interactive:
                future: asyncio.Future[dict[str, Any] | None]
                future = asyncio.get_running_loop().create_future()
                yield ev.PromptArgumentsRequested(exc.command, tuple(exc.missing), future)
                values = await future
            if not values:
                yield ev.ErrorEvent(str(exc), exit_code=exc.exit_code)
                return
            text = f"{text} {appended_arguments(values)}"
            yield ev.Notice(f"Running {text.strip()}")
        except Exception as exc:  # a bug in parsing input must not kill the session either
            logger.exception("planning the turn failed")
            yield ev.ErrorEvent(f"internal error: {type(exc).__name__}: {exc}")
            return


def skills_prompt(deps: AgentDeps, tool_names: tuple[str, ...] | None) -> tuple[str, list[str]]:
    """The system prompt's skills list and the skip notices; none when read_skill is not offered."""
    from agent_tui.skills.discover import find_skills
    from agent_tui.skills.prompt import skills_section
    from agent_tui.toolsearch.session import SKILLS_FOUND_KEY

    offered = "read_skill" in deps.tools and "read_skill" not in deps.tools.disabled
    if not offered or (tool_names is not None and "read_skill" not in tool_names):
        return "", []
    skills, notices = find_skills(deps.workspace)
    deps.session.extras[SKILLS_FOUND_KEY] = len(skills)  # read_skill is offered only with some
    return skills_section(skills), notices


def server_instructions(deps: AgentDeps) -> str:
    if getattr(deps, "mcp", None) is None:  # the references lookup above is as lenient
        return ""
    from agent_tui.mcp.instructions import instructions_section

    return instructions_section(deps.mcp, trusted=deps.config.trusted)
