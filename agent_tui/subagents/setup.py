"""Wire custom agents into a session: the run_agent tool's agent list and ``@NAME`` participants."""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path

from agent_tui.participants.registry import Participant, ParticipantRegistry
from agent_tui.subagents.loader import RUN_AGENT, AgentSpec, load_agents
from agent_tui.subagents.runner import AGENTS_KEY
from agent_tui.tools.base import SessionState
from agent_tui.tools.registry import BUILTIN_TOOLS, ToolRegistry, _lazy_factory

logger = logging.getLogger(__name__)
MAX_LISTED_DESCRIPTION = 200  # characters of one agent's description in run_agent's


def agent_list(agents: dict[str, AgentSpec]) -> str:
    """One line per agent for run_agent's description (descriptions cut, so a file cannot flood
    every request)."""
    lines = []
    for spec in sorted(agents.values(), key=lambda s: s.name):
        description = " ".join(spec.description.split())[:MAX_LISTED_DESCRIPTION]
        lines.append(f"- {spec.name}: {description}")
    return "\n".join(lines)


def install_agents(
    workspace: Path,
    tools: ToolRegistry,
    participants: ParticipantRegistry,
    session: SessionState,
    user_dir: Path | None = None,
) -> list[str]:
    """Load the agents, list them in run_agent's description and register ``@NAME`` for each
    (a name a participant already has keeps the participant).

    Returns:
        Notices about agent files that were skipped.
    """
    agents, notices = load_agents(workspace, user_dir)
    for notice in notices:
        logger.warning("%s", notice)
    session.extras[AGENTS_KEY] = agents
    if RUN_AGENT in tools:
        manifest = tools.manifest(RUN_AGENT)
        described = dataclasses.replace(
            manifest, model_description=f"{manifest.model_description}\n{agent_list(agents)}"
        )
        tools.register(described, _lazy_factory(BUILTIN_TOOLS[RUN_AGENT]))
    every = tuple(m.name for m in tools.manifests() if m.name != RUN_AGENT)
    for spec in agents.values():
        if participants.get(spec.name) is None:
            participants.register(
                Participant(
                    spec.name,
                    spec.description,
                    spec.prompt,
                    tuple(
                        n
                        for n in (spec.tools if spec.tools is not None else every)
                        if n not in spec.disallowed
                    ),
                    source=f"agent:{spec.source}",
                )
            )
    return notices
