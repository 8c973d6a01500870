"""Asking for an MCP prompt command's missing required arguments (issue 7 §4).

``/mcp.<server>.<prompt>`` without a required argument raises ``MissingPromptArguments``; the app
shows the missing ones in the elicitation form (with the server's ``completion/complete``
suggestions inline, accepted with →) and re-runs the command with ``name=value`` appended.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from typing import Any

from textual.suggester import Suggester

from agent_tui.mcp.prompts import MissingPromptArguments
from agent_tui.mcp.types import PromptArg
from agent_tui.ui.screens.elicit import ElicitScreen
from agent_tui.ui.widgets.elicit_fields import FieldSpec

Complete = Callable[[str], Awaitable[list[str]]]


class CompletionSuggester(Suggester):
    """Suggests the first server completion that extends what was typed."""

    def __init__(self, complete: Complete) -> None:
        super().__init__(use_cache=True, case_sensitive=True)
        self.complete = complete

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        options = await self.complete(value)
        return next((o for o in options if o.startswith(value) and o != value), None)


def argument_fields(missing: list[PromptArg]) -> list[FieldSpec]:
    """One required text field per missing argument."""
    return [
        FieldSpec(arg.name, "string", arg.name, arg.description, True, None, (), {})
        for arg in missing
    ]


def appended_arguments(values: dict[str, Any]) -> str:
    """``name=value`` words to append to the command (quoted so spaces survive ``shlex``)."""
    return " ".join(f"{name}={shlex.quote(str(value))}" for name, value in values.items())


def prompt_arguments_screen(error: MissingPromptArguments, manager: Any) -> ElicitScreen:
    """The form for ``error.missing`` of the command ``error.command``.

    Args:
        error: what the command raised.
        manager: the session's McpManager (for suggestions), or None.
    """
    from agent_tui.commands.mcp_cmds import complete_prompt_argument

    suggesters: dict[str, Suggester] = {}
    if manager is not None:
        for arg in error.missing:

            async def complete(value: str, name: str = arg.name) -> list[str]:
                return await complete_prompt_argument(manager, error.command, name, value)

            suggesters[arg.name] = CompletionSuggester(complete)
    server = error.command.split(".")[1] if error.command.count(".") >= 2 else ""
    return ElicitScreen(
        server,
        f"/{error.command} needs these arguments:",
        argument_fields(error.missing),
        title=f"Arguments for /{error.command}",
        suggesters=suggesters,
    )
