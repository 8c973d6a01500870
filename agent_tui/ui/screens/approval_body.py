"""What the approval dialog shows of a call: every character of it, wrapped, never cut.

A confirmation message is Markdown (DESIGN §4): prose around fenced blocks holding the command, the
diff or the JSON arguments. Textual's Markdown widget draws a fenced block as one line per source
line with a sideways scroll and no scrollbar, so the tail of a long command (``; rm -rf ~/.ssh``)
was out of sight. Here the fenced blocks are drawn by us instead: wrapped, long words folded, a diff
coloured as on the tool card; only the prose goes to the Markdown widget. Every string passes
through ``text_safety`` first, so an ESC in a command shows as ``␛``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget
from textual.widgets import Markdown, Static

from agent_tui.front.types import CommandPart
from agent_tui.text_safety import visible, visible_markdown
from agent_tui.ui.widgets.tool_card import coloured_diff, looks_like_diff

# An opening fence: up to 3 spaces, then 3+ backticks or tildes, then the info string (CommonMark).
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Block:
    """A piece of a confirmation message: prose (Markdown) or a fenced block's raw content."""

    kind: str  # "prose" | "code" | "diff"
    text: str


def split_blocks(message: str) -> list[Block]:
    """Split Markdown into prose and fenced blocks (an unclosed fence runs to the end, as in
    CommonMark); a fenced block whose language is ``diff`` or that looks like one is a diff."""
    blocks: list[Block] = []
    prose: list[str] = []
    lines = iter(message.split("\n"))
    for line in lines:
        opening = _FENCE.match(line)
        if opening is None or (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            prose.append(line)
            continue
        if any(p.strip() for p in prose):
            blocks.append(Block("prose", "\n".join(prose).strip("\n")))
        prose = []
        fence, language = opening.group(1), opening.group(2).strip()
        code = "\n".join(_until_closing(lines, fence))
        diff = language == "diff" or (not language and looks_like_diff(code))
        blocks.append(Block("diff" if diff else "code", code))
    if any(p.strip() for p in prose):
        blocks.append(Block("prose", "\n".join(prose).strip("\n")))
    return blocks


def _until_closing(lines: Iterator[str], fence: str) -> Iterator[str]:
    """A fenced block's lines up to its closing fence (the same character, at least as many, at
    most 3 spaces in), which is consumed; a fence never closed runs to the end."""
    for line in lines:
        stripped = line.strip()
        if (
            stripped.startswith(fence)
            and not stripped.strip(fence[0])
            and len(line) - len(line.lstrip(" ")) <= 3
        ):
            return
        yield line


def block_widgets(message: str) -> list[Widget]:
    """The dialog body's widgets for a confirmation message."""
    widgets: list[Widget] = []
    for block in split_blocks(message):
        if block.kind == "prose":
            widgets.append(Markdown(visible_markdown(block.text), classes="prose"))
        elif block.kind == "diff":
            widgets.append(Static(coloured_diff(visible(block.text)), classes="code diff"))
        else:
            widgets.append(Static(Text(visible(block.text)), classes="code"))
    return widgets


def parts_text(parts: list[CommandPart] | None) -> Text | None:
    """The sub-commands of a compound command line, each with what allows it (or that it asks).

    Returns:
        None for a single command that nothing allows (the dialog already says why it asks).
    """
    if parts is None:
        return Text(
            "This command line could not be split into its parts, so no rule or grant covers it.",
            style="italic",
        )
    if len(parts) == 1 and not parts[0].allowed_by and not parts[0].asks_because:
        return None
    out = Text()
    out.append(f"{len(parts)} part{'s' if len(parts) != 1 else ''}:\n", style="bold")
    for part in parts:
        if part.asks_because:
            mark, why, style = "!", f"always asks: {part.asks_because}", "bold red"
        elif part.allowed_by:
            mark, why, style = "✓", part.allowed_by, "green"
        else:
            mark, why, style = "?", "no rule or grant: needs your answer", "yellow"
        out.append(f"{mark} ", style=style)
        out.append(visible(part.text))
        out.append(f" — {visible(why)}\n", style="dim" if part.allowed_by else style)
    out.rstrip()
    return out
