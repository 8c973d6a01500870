"""Build the command and participant registries a session starts with.

Order matters where names collide: built-in templates, then prompt files (user-level, then the
workspace's), then user-defined participants, then the built-in commands last. A prompt file
called ``help.prompt.md`` cannot shadow ``/help``, nor a workspace's ``init.prompt.md`` the built-in
``/init`` template, nor a workspace's ``[[participants]] name = "workspace"`` the built-in
``@workspace``: those are skipped with a notice (``CommandRegistry.notices``), as is an entry that
cannot be read, so one bad file in a cloned repository does not stop the app.
"""

from __future__ import annotations

import importlib
from typing import Any

from agent_tui.agent.compaction.command import register_compact_command
from agent_tui.approvals.sources import SettingSources
from agent_tui.commands.builtin import register_builtin_commands
from agent_tui.commands.checkpoint_cmds import register_checkpoint_commands
from agent_tui.commands.prompt_files import register_prompt_files, register_templates
from agent_tui.commands.registry import CommandRegistry
from agent_tui.commands.skills_cmds import register_skills_commands
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

    Prompt files and participants that cannot be used are skipped; ``commands.notices`` says which.

    Args:
        config: the loaded Config (workspace, ``[[participants]]``).

    Returns:
        (commands, participants).
    """
    commands = CommandRegistry()
    participants = ParticipantRegistry()
    for participant in builtin_participants():
        participants.register(participant)
    register_templates(commands, data_dir("prompts") / "commands")
    builtin = _builtin_commands()
    code = {c.name for c in builtin.all("")}
    templates = {c.name for c in commands.all("")}
    notices = commands.notices
    # The user's prompt files may replace a built-in template (/init), never a built-in command.
    register_prompt_files(commands, [user_prompts_dir()], reserved=code, notices=notices)
    # The workspace's may replace neither, and must lie inside the workspace (links too).
    register_prompt_files(
        commands,
        [config.workspace / WORKSPACE_PROMPTS],
        workspace=config.workspace,
        reserved=code | templates,
        notices=notices,
    )
    register_user_participants(
        config,
        participants,
        commands,
        from_workspace=SettingSources(config).from_workspace("participants"),
        notices=notices,
    )
    for command in builtin.all():
        commands.register(command)
    return commands, participants


def _builtin_commands() -> CommandRegistry:
    """The commands the app implements (/help, /compact, /undo ...), in a registry of their own."""
    builtin = CommandRegistry()
    register_builtin_commands(builtin)
    register_compact_command(builtin)
    register_checkpoint_commands(builtin)
    register_skills_commands(builtin)
    _register_optional(builtin, "agent_tui.commands.approvals_cmds", "register_approval_commands")
    return builtin
