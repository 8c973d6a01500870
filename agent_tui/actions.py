"""What a slash command asks the front end to do: frozen dataclasses, matched by type.

A command handler returns one in ``CommandResult.action``; the agent passes it on in the
``CommandHandled`` event. The app carries each out (``AgentApp.do_action``, a ``match``). Under
``-p`` (``Agent.interactive`` False) a command that returns an ``app_only`` action is refused by
the turn planner with "works only in the app" (exit 2), as the commands marked
``interactive_only`` are before they run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class Action:
    """Base of every UI action.

    ``name`` is the action's name in stream-json (``command_handled``'s ``action``, its fields
    the ``data``); ``app_only`` actions make their command fail under ``-p``.
    """

    name: ClassVar[str] = "action"
    app_only: ClassVar[bool] = True

    def data(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True)
class Clear(Action):
    """/clear: start a new conversation (the app asks first)."""

    name: ClassVar[str] = "clear"


@dataclass(frozen=True)
class New(Action):
    """/new: as /clear."""

    name: ClassVar[str] = "new"


@dataclass(frozen=True)
class UndoClear(Action):
    """/undo-clear: bring back what the last /clear removed."""

    name: ClassVar[str] = "undo_clear"


@dataclass(frozen=True)
class Undo(Action):
    """/undo in the app: put back the last turn's files (asks about hand-edited ones)."""

    name: ClassVar[str] = "undo"

    force: bool = False


@dataclass(frozen=True)
class Rewind(Action):
    """/rewind: pick an earlier prompt to go back to."""

    name: ClassVar[str] = "rewind"


@dataclass(frozen=True)
class Exit(Action):
    """/exit: quit."""

    name: ClassVar[str] = "exit"


@dataclass(frozen=True)
class Resume(Action):
    """/resume: pick a saved session of this folder."""

    name: ClassVar[str] = "resume"


@dataclass(frozen=True)
class Fork(Action):
    """/fork: continue a copy of this session under a new id."""

    name: ClassVar[str] = "fork"


@dataclass(frozen=True)
class OpenToolPicker(Action):
    """/tools: choose the tools offered to the model."""

    name: ClassVar[str] = "open_tool_picker"


@dataclass(frozen=True)
class PickModel(Action):
    """/model [name]: switch to the model ``model`` (an alias or any model name of the running
    provider), or pick from a list."""

    name: ClassVar[str] = "pick_model"

    model: str = ""


@dataclass(frozen=True)
class Trust(Action):
    """/trust on|off: the folder's trust changed; apply it to the running agent."""

    name: ClassVar[str] = "trust"
    app_only: ClassVar[bool] = False  # the folder's trust is already saved

    trusted: bool
    workspace: str = ""


@dataclass(frozen=True)
class Copy(Action):
    """/copy [N|pick]: copy an answer or code block (OSC 52)."""

    name: ClassVar[str] = "copy"

    args: str = ""


@dataclass(frozen=True)
class Terminals(Action):
    """/terminals: list the background terminals."""

    name: ClassVar[str] = "terminals"


@dataclass(frozen=True)
class OpenApprovals(Action):
    """/approvals in the app: the grants as a table to revoke from (the message is not shown)."""

    name: ClassVar[str] = "open_approvals"


@dataclass(frozen=True)
class EditMcp(Action):
    """/mcp add | add-json | remove: change an ``.agentrc``'s MCP servers, then start or stop them
    in this session (the app, through ``Front.mcp.edit``; the shell has ``agent-tui mcp add``)."""

    name: ClassVar[str] = "edit_mcp"

    words: tuple[str, ...] = ()


UiAction = (
    Clear
    | New
    | UndoClear
    | Undo
    | Rewind
    | Exit
    | Resume
    | Fork
    | OpenToolPicker
    | PickModel
    | Trust
    | Copy
    | Terminals
    | OpenApprovals
    | EditMcp
)
