"""The app's slash commands in Ctrl+P's command palette.

Fed by the same registry as completion, /help and dispatch, so the palette lists exactly the
commands that exist (prompt files and MCP prompts included). Choosing one goes through the prompt,
as if typed: a command that needs arguments (``/mcp.s.p <topic>``, ``@workspace /explain``) is put
in the prompt for the user to finish; any other is sent at once.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from agent_tui.front.views import CommandView
    from agent_tui.ui.app import AgentApp


def command_text(command: CommandView) -> str:
    """How the command is typed: ``/help``, ``@workspace /explain``."""
    prefix = f"@{command.participant} " if command.participant else ""
    return f"{prefix}/{command.name}"


def needs_arguments(command: CommandView) -> bool:
    # "[alias]" is optional; anything else ("<topic>", "ID") must be typed. A participant's
    # command is a question to that participant: the question is still to come.
    hint = str(command.args_hint).strip()
    return bool(command.participant) or bool(hint and not hint.startswith("["))


class SlashCommandsProvider(Provider):
    """Palette hits for every registered slash command."""

    @property
    def agent_app(self) -> AgentApp:
        return self.app  # type: ignore[return-value]

    def _commands(self) -> list[CommandView]:
        return self.agent_app.front.completions.all_commands()

    def _choose(self, command: CommandView) -> None:
        prompt = self.agent_app.prompt_input
        text = command_text(command)
        prompt.focus()
        if needs_arguments(command):
            prompt.load_text(text + " ")
            prompt.move_cursor(prompt.document.end)
        else:
            prompt.load_text(text)
            prompt.action_submit()  # the usual path: history, and refused while a turn runs

    async def discover(self) -> Hits:
        for command in self._commands():
            yield DiscoveryHit(
                command_text(command), partial(self._choose, command), help=command.description
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._commands():
            text = command_text(command)
            # Match the description too: "approvals" finds /reset-confirmations.
            score = max(matcher.match(text), matcher.match(command.description) * 0.5)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(text),
                    partial(self._choose, command),
                    text=text,
                    help=command.description,
                )
