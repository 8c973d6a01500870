"""/rename, /export and /fork: the session by name, written out, continued as a copy.

``/rename`` and ``/export`` work in the app and under ``-p`` (with ``--continue`` or
``--resume``); ``/fork`` switches the app to the copy (``actions.Fork``), and ``--fork`` is its
command-line form.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui import actions
from agent_tui.commands.registry import CommandContext, CommandResult, SlashCommand
from agent_tui.errors import UsageError
from agent_tui.text_safety import one_line

NOTHING_SAVED = "Nothing to export yet: the session is saved with its first prompt."
SUFFIXES = {".html": "html", ".htm": "html", ".json": "json"}  # any other: Markdown


async def _rename(ctx: CommandContext, args: str) -> CommandResult:
    recorder = ctx.agent.recorder
    if not args.strip():
        raise UsageError("/rename needs a name: /rename NAME")
    if recorder is None:
        return CommandResult(message="This session is not saved: there is nothing to name.")
    name = recorder.writer.rename(args)
    shown = one_line(name)
    if not recorder.writer.started:
        return CommandResult(
            message=f"The session will be saved as “{shown}” with its first prompt."
        )
    return CommandResult(
        message=f"Renamed the session “{shown}”: `agent-tui --resume` finds it by that name.",
        data={"name": name, "session": recorder.session_id},
    )


def _target(ctx: CommandContext, args: str, session_id: str) -> Path:
    """Where ``/export`` writes: PATH (relative to the workspace), or ``<id>.md`` there."""
    workspace = ctx.agent.deps.workspace
    text = args.strip()
    path = Path(text).expanduser() if text else Path(f"{session_id}.md")
    return path if path.is_absolute() else workspace / path


async def _export(ctx: CommandContext, args: str) -> CommandResult:
    from agent_tui.sessions.export import render
    from agent_tui.sessions.loader import SessionFileError, load

    recorder = ctx.agent.recorder
    if recorder is None or not recorder.writer.started or not recorder.writer.path.exists():
        return CommandResult(message=NOTHING_SAVED)
    recorder.sync(ctx.agent.conversation)
    target = _target(ctx, args, recorder.session_id)
    if target.exists() or target.is_symlink():
        raise UsageError(f"/export: {one_line(str(target))} exists; give another path")
    fmt = SUFFIXES.get(target.suffix.lower(), "md")
    try:
        text = render(load(recorder.writer.path), fmt)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as out:  # "x": never over a file made meanwhile
            out.write(text)
    except (OSError, SessionFileError) as exc:
        raise UsageError(f"/export: {one_line(str(exc))}") from None
    return CommandResult(
        message=f"Exported the session to `{one_line(str(target))}` ({fmt}).",
        data={"path": str(target), "format": fmt},
    )


async def _fork(ctx: CommandContext, args: str) -> CommandResult:
    if args.strip():
        raise UsageError("/fork takes no argument (/rename names the copy)")
    return CommandResult(action=actions.Fork())


SESSION_COMMANDS = (
    SlashCommand(
        "rename",
        "Name this session (`--resume NAME` and the /resume list find it by name)",
        _rename,
        args_hint="NAME",
    ),
    SlashCommand(
        "export",
        "Write the conversation to PATH: Markdown (.html: one HTML file; .json: its messages)",
        _export,
        args_hint="[PATH]",
    ),
    SlashCommand(
        "fork",
        "Continue a copy of this session under a new id (the original stays as it is)",
        _fork,
        interactive_only=True,
    ),
)
