"""Asking for an MCP prompt command's missing required arguments.

``/mcp.<server>.<prompt>`` without a required argument makes the core ask with a
``PromptArgumentsRequested`` event; the app shows the missing ones in the elicitation form (with
the server's ``completion/complete`` suggestions inline, accepted with →) and answers with their
values, which the core appends as ``name=value`` and runs the command with.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from textual.suggester import Suggester

from agent_tui.front.types import PromptArg
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


if TYPE_CHECKING:
    from agent_tui.front.mcp import Mcp


def argument_fields(missing: Sequence[PromptArg]) -> list[FieldSpec]:
    """One required text field per missing argument."""
    return [
        FieldSpec(arg.name, "string", arg.name, arg.description, True, None, (), {})
        for arg in missing
    ]


def prompt_arguments_screen(command: str, missing: Sequence[PromptArg], mcp: Mcp) -> ElicitScreen:
    """The form for the arguments ``missing`` of the command ``command``.

    Args:
        command: the command's name (``mcp.<server>.<prompt>``).
        missing: the required arguments it was not given.
        mcp: the session's MCP servers (for suggestions).
    """
    suggesters: dict[str, Suggester] = {}
    if mcp.present:
        for arg in missing:

            async def complete(value: str, name: str = arg.name) -> list[str]:
                return await mcp.complete_argument(command, name, value)

            suggesters[arg.name] = CompletionSuggester(complete)
    server = command.split(".")[1] if command.count(".") >= 2 else ""
    return ElicitScreen(
        server,
        f"/{command} needs these arguments:",
        argument_fields(missing),
        title=f"Arguments for /{command}",
        suggesters=suggesters,
    )
