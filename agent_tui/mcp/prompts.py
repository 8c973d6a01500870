"""MCP prompts as slash commands: parse ``/mcp.<server>.<prompt>`` arguments, render the messages.

Arguments are ``key=value`` or positional (filling the prompt's declared arguments in order);
quote values with spaces (``city="New York"``). The returned messages become the turn's prompt.
"""

from __future__ import annotations

import re
import shlex

from agent_tui.errors import UsageError
from agent_tui.mcp.types import PromptArg, PromptInfo, PromptResult, render_parts


class MissingPromptArguments(UsageError):
    """Required prompt arguments were not given; ``missing`` lists them (the TUI asks for them)."""

    def __init__(self, command: str, missing: list[PromptArg]) -> None:
        self.command = command
        self.missing = missing
        described = ", ".join(
            f"`{arg.name}`" + (f" ({arg.description})" if arg.description else "")
            for arg in missing
        )
        super().__init__(f"/{command} needs: {described}. Give them as name=value.")


def appended_arguments(values: dict[str, object]) -> str:
    """``name=value`` words to append to the command (quoted so spaces survive ``shlex``)."""
    return " ".join(f"{name}={shlex.quote(str(value))}" for name, value in values.items())


def command_name(server: str, prompt: str) -> str:
    """``mcp.<server>.<prompt>``, with anything but letters, digits, ``_``, ``.`` and ``-`` made
    ``_``: a command is one word (``/mcp.my_server.code_review args``), whatever the names hold."""
    return re.sub(r"[^\w.-]", "_", f"mcp.{server}.{prompt}", flags=re.ASCII)


def args_hint(prompt: PromptInfo) -> str:
    return " ".join(
        f"{arg.name}=…" if arg.required else f"[{arg.name}=…]" for arg in prompt.arguments
    )


def parse_arguments(prompt: PromptInfo, text: str, *, command: str = "") -> dict[str, str]:
    """Match the text after the command against the prompt's arguments.

    Raises:
        UsageError: unbalanced quotes, an unknown ``key=``, or more positional values than arguments.
        MissingPromptArguments: a required argument has no value.
    """
    command = command or prompt.name
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"/{command}: {exc}") from exc
    names = [arg.name for arg in prompt.arguments]
    values: dict[str, str] = {}
    positional: list[str] = []
    for token in tokens:
        key, sep, value = token.partition("=")
        if sep and key in names:
            values[key] = value
        elif sep and key.isidentifier() and names:
            raise UsageError(f"/{command} has no argument `{key}` (it takes: {', '.join(names)}).")
        else:
            positional.append(token)
    free = [name for name in names if name not in values]
    if len(positional) > len(free):
        if not free:
            raise UsageError(
                f"/{command}: too many values (it takes: {', '.join(names) or 'none'})."
            )
        # Extra words go to the last free argument, so `/mcp.x.ask why is it slow` needs no quotes.
        keep = len(free) - 1
        positional = [*positional[:keep], " ".join(positional[keep:])]
    values.update(zip(free, positional, strict=False))
    missing = [arg for arg in prompt.arguments if arg.required and not values.get(arg.name)]
    if missing:
        raise MissingPromptArguments(command, missing)
    return values


def render_prompt(result: PromptResult) -> str:
    """The prompt's messages as one request: a lone user message as is, several labelled by role."""
    if len(result.messages) == 1 and result.messages[0].role == "user":
        return render_parts(result.messages[0].parts)
    return "\n\n".join(
        f"**{message.role}:** {render_parts(message.parts)}" for message in result.messages
    )
