"""Built-in participants (@workspace, @terminal) and the user's ``[[participants]]`` from .agentrc.

Each built-in is a Markdown file in ``prompts/participants/`` whose front matter gives its
description and tools; user-defined ones come from config. Both register through
``ParticipantRegistry.register`` and their commands through ``CommandRegistry.register``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.commands.prompt_files import (
    COMMAND_NAME,
    PromptFile,
    prompt_command,
    read_prompt_file,
)
from agent_tui.commands.registry import CommandRegistry
from agent_tui.errors import ConfigError
from agent_tui.participants.registry import Participant, ParticipantRegistry
from agent_tui.paths import user_prompts_dir
from agent_tui.resources import data_dir
from agent_tui.tools.workspace_paths import inside_workspace, real_path

DEFAULT = Participant("", "The default agent: every enabled tool")


def builtin_participants(folder: Path | None = None) -> list[Participant]:
    """The default agent plus one participant per ``prompts/participants/*.md``."""
    folder = folder or data_dir("prompts") / "participants"
    found = [DEFAULT]
    for path in sorted(folder.glob("*.md")):
        prompt = read_prompt_file(path)
        found.append(Participant(prompt.name, prompt.description, prompt.body, prompt.tools))
    return found


def _prompt_file_text(entry: dict[str, Any], index: int, workspace: Path) -> str:
    """Read ``prompt_file``, which must lie in the workspace or ``~/.agent/``.

    Why the limit: a cloned repo's .agentrc may define participants before the folder is trusted, and
    ``prompt_file = "~/.ssh/id_rsa"`` would send that file to the model provider.
    """
    key = f"participants[{index}].prompt_file"
    raw = str(entry["prompt_file"])
    path = real_path(workspace, raw)
    # The same check as read_file's (links followed), with ~/.agent/ as a second allowed root.
    if (
        inside_workspace(workspace, raw) is None
        and inside_workspace(user_prompts_dir().parent, path) is None
    ):
        raise ConfigError(
            f"must be a file inside the workspace or ~/.agent/, and {raw} leads to {path}", key=key
        )
    try:
        return read_prompt_file(path, "prompt").body
    except ConfigError as exc:
        raise ConfigError(exc.reason, file=exc.file, key=key) from None


def register_user_participants(
    config: Any,
    participants: ParticipantRegistry,
    commands: CommandRegistry,
    *,
    from_workspace: bool = False,
    notices: list[str] | None = None,
) -> None:
    """Register ``[[participants]]`` from config (name, description, prompt or prompt_file, tools,
    commands).

    Your own ``~/.agentrc`` may replace a built-in participant of the same name; a workspace's
    ``.agentrc`` may not (a cloned repository would otherwise change what ``@workspace`` does).
    An entry that cannot be used (a prompt file missing or outside the allowed folders, a bad
    command name) is skipped with a notice, and the other entries still apply.

    Args:
        config: the loaded Config.
        participants: the registry, holding the built-in participants already.
        commands: where participant commands go.
        from_workspace: the entries come from the workspace's ``.agentrc``.
        notices: where to add one line per entry or command skipped (None: not reported).
    """
    skipped = notices if notices is not None else []
    builtin = {p.name for p in participants.all() if p.source == "built-in"}
    where = "the workspace .agentrc" if from_workspace else "~/.agentrc"
    entries = config.section("participants") or []
    for index, entry in enumerate(entries):
        name = str(entry["name"])
        if from_workspace and name in builtin:
            skipped.append(
                f"@{name} from {where} not used: @{name} is built in, "
                "and a workspace cannot replace it"
            )
            continue
        try:
            participant = _user_participant(config, entry, index)
        except ConfigError as exc:
            key = exc.key or f"participants[{index}]"
            skipped.append(f"@{name} from {where} not used: {key}: {exc.reason}")
            continue
        participants.register(participant)
        _register_commands(config, commands, name, entry.get("commands", []), skipped, where)


def _register_commands(
    config: Any,
    commands: CommandRegistry,
    name: str,
    specs: list[dict[str, Any]],
    skipped: list[str],
    where: str,
) -> None:
    """A participant's ``commands`` as prompt commands that address it (bad names skipped)."""
    for spec in specs:
        command_name = str(spec["name"])
        if not COMMAND_NAME.match(command_name):
            skipped.append(
                f"@{name} command {command_name!r} from {where} not used: "
                "a command name is letters, digits, '-', '_' or '.'"
            )
            continue
        template = PromptFile(
            name=command_name,
            path=Path(config.workspace) / ".agentrc",
            body=str(spec.get("prompt") or "$ARGUMENTS"),
            description=str(spec.get("description") or f"@{name} /{command_name}"),
        )
        commands.register(prompt_command(template, source="user", participant=name, reread=False))


def _user_participant(config: Any, entry: dict[str, Any], index: int) -> Participant:
    """One ``[[participants]]`` entry as a Participant.

    Raises:
        ConfigError: its prompt file is missing, unreadable or outside the allowed folders.
    """
    name = str(entry["name"])
    prompt = str(entry.get("prompt", ""))
    if entry.get("prompt_file"):
        prompt = "\n\n".join(
            p for p in (prompt, _prompt_file_text(entry, index, config.workspace)) if p
        )
    tools = entry.get("tools")
    return Participant(
        name,
        str(entry.get("description") or f"user-defined participant {name}"),
        prompt,
        tuple(tools) if tools is not None else None,
        source="user",
    )
