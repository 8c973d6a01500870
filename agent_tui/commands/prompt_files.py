"""Prompt files become slash commands: ``.agent/prompts/review.prompt.md`` -> ``/review``.

A prompt file is Markdown with optional front matter::

    ---
    description: Review the staged changes
    participant: workspace          # route the turn to @workspace (optional)
    tools: [read_file, grep_search]  # offer only these tools (optional; names or tag:<tag>)
    ---
    Review #changes with a focus on $ARGUMENTS.

``$ARGUMENTS`` is replaced by what follows the command (appended when the body has no placeholder);
``#file:`` and other references in the body are resolved like the user's own (paths relative to the
workspace root). The file is re-read on every use, so edits apply at once. Workspace files win over
``~/.agent/prompts/`` ones of the same name. The built-in templates in ``prompts/commands/`` use the
same format; a sub-folder names the participant that owns them (``commands/workspace/explain.md``).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from agent_tui.commands.registry import (
    CommandContext,
    CommandRegistry,
    CommandResult,
    Handler,
    SlashCommand,
)
from agent_tui.errors import ConfigError, UsageError
from agent_tui.front_matter import parse_front_matter
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.tools.workspace_paths import OutsideWorkspace, require_inside

PROMPT_SUFFIX = ".prompt.md"
COMMAND_NAME = re.compile(r"^[A-Za-z][\w.-]*$")


@dataclass(frozen=True)
class PromptFile:
    """A parsed prompt file or template."""

    name: str
    path: Path
    body: str
    description: str = ""
    participant: str = ""
    tools: tuple[str, ...] | None = None
    args_hint: str = ""
    meta: dict[str, str | list[str]] = field(default_factory=dict)

    def expand(self, arguments: str) -> str:
        """The body with ``$ARGUMENTS`` replaced (or the arguments appended when it has none)."""
        if "$ARGUMENTS" in self.body:
            return self.body.replace("$ARGUMENTS", arguments).strip()
        return f"{self.body}\n\n{arguments}".strip() if arguments else self.body


def read_prompt_file(path: Path, name: str | None = None) -> PromptFile:
    """Parse one prompt file; ``name`` defaults to the file name without ``.prompt.md``/``.md``.

    Raises:
        ConfigError: unreadable, bad front matter, or a name that cannot be a command.
    """
    if name is None:
        name = path.name.removesuffix(PROMPT_SUFFIX).removesuffix(".md")
    if not COMMAND_NAME.match(name):
        raise ConfigError(
            f"{name!r} cannot be a command name (letters, digits, '-', '_', '.'): rename the file",
            file=str(path),
        )
    try:
        text = read_text(path, MAX_TEXT_FILE_BYTES, errors="strict")
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(path)) from exc
    meta, body = parse_front_matter(text, str(path))
    tools = meta.get("tools")
    hint = meta.get("args_hint") or meta.get("argument-hint") or ""
    if isinstance(hint, list):  # `args_hint: [question]` reads as a list; the user meant the text
        hint = f"[{', '.join(hint)}]"
    return PromptFile(
        name=name,
        path=path,
        body=body,
        description=str(meta.get("description") or f"prompt file {path.name}"),
        participant=str(meta.get("participant") or ""),
        tools=tuple([tools] if isinstance(tools, str) else tools) if tools is not None else None,
        args_hint=str(hint),
        meta=meta,
    )


def _handler(prompt: PromptFile, reread: bool, workspace: Path | None) -> Handler:
    async def run(ctx: CommandContext, arguments: str) -> CommandResult:
        current = prompt
        if reread:  # the user may have edited the file since the registry was built
            try:
                if workspace is not None:  # ... or swapped it for a link since
                    require_inside(workspace, prompt.path)
                current = read_prompt_file(prompt.path, prompt.name)
            except OutsideWorkspace as exc:
                raise _outside_error(prompt.name, exc) from None
            except ConfigError as exc:
                raise UsageError(f"/{prompt.name}: {exc}") from None
        return CommandResult(
            prompt=current.expand(arguments),
            data={
                "participant": current.participant,
                "tools": list(current.tools) if current.tools is not None else None,
                "file": str(current.path),
            },
        )

    return run


def _outside_error(name: str, exc: OutsideWorkspace) -> UsageError:
    return UsageError(
        f"/{name}: not sent. The prompt file {exc.path} leads to {exc.target}, outside the "
        "workspace; prompt files are read only from inside it (a link in a cloned repository "
        "could otherwise send any of your files to the model)."
    )


def _refusing_command(name: str, exc: OutsideWorkspace) -> SlashCommand:
    """``/name`` for a prompt file that leads outside the workspace: it explains, and sends nothing."""

    async def run(ctx: CommandContext, arguments: str) -> CommandResult:
        raise _outside_error(name, exc)

    return SlashCommand(
        name=name,
        description=f"not loaded: {Path(exc.path).name} leads outside the workspace",
        handler=run,
        source="prompt-file",
    )


def prompt_command(
    prompt: PromptFile,
    *,
    source: str,
    participant: str = "",
    reread: bool = True,
    workspace: Path | None = None,
) -> SlashCommand:
    """The slash command that sends ``prompt``.

    Args:
        prompt: the parsed file (or an inline template from config).
        source: the registry source ("prompt-file", "built-in", "user").
        participant: the participant that owns the command ("" = global).
        reread: read ``prompt.path`` again on each use (False for inline templates).
        workspace: set for a workspace's prompt file, which must still lie inside it when re-read.
    """
    return SlashCommand(
        name=prompt.name,
        description=prompt.description,
        handler=_handler(prompt, reread, workspace),
        args_hint=prompt.args_hint,
        source=source,
        participant=participant,
    )


def find_prompt_files(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"*{PROMPT_SUFFIX}")) if folder.is_dir() else []


def register_prompt_files(
    registry: CommandRegistry,
    folders: list[Path],
    *,
    workspace: Path | None = None,
    reserved: Collection[str] = (),
    notices: list[str] | None = None,
) -> list[PromptFile]:
    """Register every ``*.prompt.md`` in ``folders``; a later folder wins over an earlier one.

    A file that cannot be a command (bad front matter, a bad name, unreadable) or that would take
    a ``reserved`` name is skipped with a notice: one bad file in a cloned repository must not
    stop the app, nor replace a built-in command.

    Args:
        registry: where the commands go.
        folders: the prompt folders, in order.
        workspace: for a workspace's own folders: a file that leads outside it (a link, or a
            linked folder) is not read; its command only says why.
        reserved: global command names these files may not take (the built-in ones).
        notices: where to add one line per file skipped (None: not reported).

    Returns:
        The prompt files registered.
    """
    skipped = notices if notices is not None else []
    found, refused = _scan(folders, workspace, reserved, skipped)
    for prompt in found.values():
        registry.register(prompt_command(prompt, source="prompt-file", workspace=workspace))
    for command in refused.values():
        registry.register(command)
    return list(found.values())


def _scan(
    folders: list[Path], workspace: Path | None, reserved: Collection[str], skipped: list[str]
) -> tuple[dict[str, PromptFile], dict[str, SlashCommand]]:
    """The prompt files by command name, and the commands that only say why a file was
    refused (it leads outside the workspace); a later folder wins."""
    found: dict[str, PromptFile] = {}
    refused: dict[str, SlashCommand] = {}
    for folder in folders:
        for path in find_prompt_files(folder):
            name = path.name.removesuffix(PROMPT_SUFFIX)
            if name in reserved:
                skipped.append(f"prompt file {path.name} not loaded: /{name} is a built-in command")
                continue
            if workspace is not None:
                try:
                    require_inside(workspace, path)
                except OutsideWorkspace as exc:
                    refused[name] = _refusing_command(name, exc)
                    found.pop(name, None)
                    continue
            try:
                prompt = read_prompt_file(path)
            except ConfigError as exc:
                skipped.append(f"prompt file {path.name} not loaded: {exc.reason}")
                continue
            found[prompt.name] = prompt
            refused.pop(prompt.name, None)
    return found, refused


def register_templates(registry: CommandRegistry, folder: Path) -> None:
    """Register the built-in templates: ``folder/*.md`` globally, ``folder/<participant>/*.md`` for it."""
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.md")):
        registry.register(prompt_command(read_prompt_file(path), source="built-in"))
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        for path in sorted(sub.glob("*.md")):
            command = prompt_command(
                read_prompt_file(path), source="built-in", participant=sub.name
            )
            registry.register(command)
