"""Slash commands the app runs itself (handler + UI action) instead of sending them to the model.

The app looks a ``/name args`` input up in ``agent.deps.commands``; when the command exists, the
app awaits its handler and carries out ``CommandResult.action``; ``message`` becomes a note and
``prompt`` is sent to the model as the turn's text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

UI_ACTIONS = frozenset(
    {
        "clear",
        "new",
        "undo_clear",
        "exit",
        "open_tool_picker",
        "pick_model",
        "open_approvals",
        "trust",
        "help",
        "undo",
        "rewind",
        "terminals",
    }
)


@dataclass(frozen=True)
class UiCommandContext:
    """The ``CommandContext`` the TUI gives handlers."""

    agent: Any
    interactive: bool = True


def split_command(text: str) -> tuple[str, str] | None:
    """``"/model fast"`` -> ``("model", "fast")``; None when ``text`` is not a slash command."""
    if not text.startswith("/") or len(text) < 2 or text[1].isspace():
        return None
    name, _, args = text[1:].partition(" ")
    return name.strip(), args.strip()
