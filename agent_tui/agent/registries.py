"""Build the command and participant registries a session starts with.

Order matters where names collide: built-in templates, then prompt files (user-level, then the
workspace's), then user-defined participants, then the built-in commands last, so a prompt file
called ``help.prompt.md`` cannot shadow ``/help``.
"""

from __future__ import annotations

import importlib
from typing import Any

from agent_tui.commands.builtin import register_builtin_commands
from agent_tui.commands.checkpoint_cmds import register_checkpoint_commands
from agent_tui.commands.prompt_files import register_prompt_files, register_templates
from agent_tui.commands.registry import CommandRegistry
from agent_tui.commands.skills_cmds import register_skills_commands
from agent_tui.compaction.command import register_compact_command
from agent_tui.participants.builtin import builtin_participants, register_user_participants
from agent_tui.participants.registry import ParticipantRegistry
from agent_tui.paths import user_prompts_dir
from agent_tui.resources import data_dir

WORKSPACE_PROMPTS = ".agent/prompts"


def _register_optional(registry: CommandRegistry, module: str, function: str) -> None:
    """Call ``module.function(registry)`` when that module exists.

    The approvals commands (/reset-confirmations, /approvals, /trust) live in
    ``agent_tui.commands.approvals_cmds``, written alongside this module by another work stream; until
    it lands the registry simply lacks them. Any other import failure inside it is a real bug and
    propagates.
    """
    try:
        loaded = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return
        raise
    getattr(loaded, function)(registry)


def default_registries(config: Any) -> tuple[CommandRegistry, ParticipantRegistry]:
    """The registries for a session in ``config.workspace``.

    Args:
        config: the loaded Config (workspace, ``[[participants]]``).

    Returns:
        (commands, participants).

    Raises:
        ConfigError: a prompt file or a participant's prompt file is malformed or not allowed.
    """
    commands = CommandRegistry()
    participants = ParticipantRegistry()
    for participant in builtin_participants():
        participants.register(participant)
    register_templates(commands, data_dir("prompts") / "commands")
    register_prompt_files(commands, [user_prompts_dir()])
    # Workspace prompt files win over the user's; they must lie inside the workspace (links too).
    register_prompt_files(
        commands, [config.workspace / WORKSPACE_PROMPTS], workspace=config.workspace
    )
    register_user_participants(config, participants, commands)
    register_builtin_commands(commands)
    register_compact_command(commands)
    register_checkpoint_commands(commands)
    register_skills_commands(commands)
    _register_optional(commands, "agent_tui.commands.approvals_cmds", "register_approval_commands")
    return commands, participants
