"""The tools a front end lists and turns off, and the references and commands it completes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_tui.front import tool_prefs
from agent_tui.front.views import Candidate, CommandView

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent, AgentDeps
    from agent_tui.commands.registry import SlashCommand
    from agent_tui.tools.base import Manifest


def command_view(command: SlashCommand) -> CommandView:
    return CommandView(command.name, command.description, command.args_hint, command.participant)


class Tools:
    """The session's tools: every one with its manifest, and which the user turned off.

    Turning tools off (the picker) applies to the running agent at once and is kept per
    workspace in the state dir (``tool_prefs``).
    """

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    @property
    def _deps(self) -> AgentDeps:
        return self._agent.deps

    def manifests(self) -> list[Manifest]:
        """Every registered tool, enabled or not."""
        return list(self._deps.tools.manifests())

    @property
    def disabled(self) -> frozenset[str]:
        return frozenset(self._deps.tools.disabled)

    def set_disabled(self, names: set[str], *, save: bool = True) -> None:
        """Turn off exactly ``names``; ``save`` keeps the choice for this workspace.

        Raises:
            OSError, filelock.Timeout: saving failed (the choice still applies to this session).
        """
        self._deps.tools.disabled = set(names)
        if save:
            tool_prefs.save_disabled(self._deps.workspace, set(names))

    def restore_saved(self) -> None:
        """Apply the choice saved for this workspace, if any (a front end does it at start)."""
        saved = tool_prefs.load_disabled(self._deps.workspace)
        if saved:
            self._deps.tools.disabled = saved


class Completions:
    """What a front end offers as the user types ``/``, ``@`` and ``#``: from the same registries
    that dispatch, so nothing is offered that would not run."""

    def __init__(self, agent: Agent) -> None:
        self._agent = agent

    @property
    def _deps(self) -> AgentDeps:
        return self._agent.deps

    def commands(self, prefix: str = "", participant: str = "") -> list[CommandView]:
        """Commands whose name starts with ``prefix`` (for ``participant``; "" = global)."""
        return [command_view(c) for c in self._deps.commands.complete(prefix, participant)]

    def all_commands(self) -> list[CommandView]:
        """Every command, for ``/help`` and a command palette."""
        return [command_view(c) for c in self._deps.commands.all()]

    def participants(self, prefix: str = "") -> list[Candidate]:
        return [Candidate(p.name, p.description) for p in self._deps.participants.complete(prefix)]

    def tool_references(self) -> list[Candidate]:
        """The enabled tools' ``#name`` references, with their display names."""
        return [
            Candidate(m.tool_reference_name, m.display_name) for m in self._deps.tools.enabled()
        ]
