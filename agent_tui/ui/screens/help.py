"""Help: the keys and every slash command from the registry (the same records /help lists)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

from agent_tui.text_safety import visible_markdown

if TYPE_CHECKING:
    from agent_tui.front.views import CommandView

KEYS = (
    ("Enter", "send the prompt"),
    ("Shift+Enter / Ctrl+J", "new line"),
    ("`\\` then Enter", "new line (for terminals that send Shift+Enter as Enter)"),
    ("Up / Down", "earlier prompts (on the first / last line)"),
    ("Ctrl+R", "search earlier prompts (again: older; Enter takes the match; Esc cancels)"),
    ("[ui] vim = true", "vi modes in the prompt: Esc, h j k l, w b, 0 $, x, dd, u, i a I A o"),
    ("Tab", "accept a completion (`/` commands, `@` participants, `#` references)"),
    ("PageUp / PageDown", "scroll the transcript (from the prompt too)"),
    ("Typing", "always goes to the prompt, even after a click in the transcript or Tab"),
    ("Enter during a turn", "queue the message; it is sent when the turn ends"),
    ("Alt+Enter during a turn", "steer: the model reads it after the current tool results"),
    ("Ctrl+S", "the same where Alt+Enter does not arrive (and sends when idle)"),
    ("Up on an empty prompt", "take the last queued message back to edit or clear"),
    ("Esc", "cancel the running turn (queued messages come back to the prompt)"),
    ("Esc Esc", "on an empty prompt: bring back the previous prompt to edit"),
    ("Ctrl+G", "edit the prompt in $VISUAL / $EDITOR"),
    ("Ctrl+O", "open the newest one-line earlier turn of a resumed session"),
    ("Shift+Tab", "mode: ask → accept edits (edits in the workspace run) → plan (read-only)"),
    (
        "1 / 2 / Esc after a plan",
        "carry it out (in the mode before plan mode, or the other) / keep planning (or type)",
    ),
    ("!command", "run a shell command yourself; its output goes with the next prompt"),
    ("@path", "attach a workspace file (Tab completes participants and files)"),
    ("Ctrl+T", "tool picker (Space toggles, Enter saves, Esc cancels)"),
    (
        "Enter in /terminals",
        "the terminal's output, following new lines (scroll up to stop, End follows again)",
    ),
    ("F2", "collapse / expand the todo list above the prompt (or click it)"),
    ("Ctrl+P", "command palette: every slash command, searchable"),
    ("F1", "this help"),
    ("Ctrl+C", "clear the prompt; on an empty prompt, twice quits"),
    (
        "y / s / w / a / n / e in an approval",
        "allow once / for the session / the workspace / always, deny, edit; a question that opens"
        " while you type takes keys only after a pause (what you type goes to the prompt), and"
        " Enter alone never allows",
    ),
)


def help_markdown(commands: list[CommandView], rebound: Sequence[tuple[str, str, str]] = ()) -> str:
    """The help text: keys (with those ``[ui] keys`` changed: action, keys, what it does), then
    commands, as compact lists."""
    lines = ["## Keys", ""]
    if rebound:
        lines.append("Yours (`[ui] keys`; the list below gives the defaults):")
        lines += [f"- **{keys}**: {does} (`{action}`)" for action, keys, does in rebound]
        lines.append("")
    lines += [f"- **{key}**: {does}" for key, does in KEYS]
    lines += ["", "## Commands", ""]
    for command in commands:
        prefix = f"@{command.participant} " if command.participant else ""
        args = f" {command.args_hint}" if command.args_hint else ""
        # `<alias>` would be read as an HTML tag and vanish: escape it.
        description = command.description.replace("<", "\\<")
        lines.append(f"- `{prefix}/{command.name}{args}`: {description}")
    return "\n".join(lines)


class HelpScreen(ModalScreen[None]):
    CSS_PATH = "help.tcss"
    BINDINGS = [Binding("escape,q,f1", "dismiss", "Close")]

    def __init__(
        self, commands: list[CommandView], rebound: Sequence[tuple[str, str, str]] = ()
    ) -> None:
        super().__init__()
        self.commands = commands
        self.rebound = rebound

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label("Help — Esc to close", id="title")
            with VerticalScroll():
                # Prompt files and MCP servers describe their commands: control characters shown.
                yield Markdown(visible_markdown(help_markdown(self.commands, self.rebound)))
