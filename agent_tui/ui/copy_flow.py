"""``/copy``: put an answer or a code block on the clipboard, over SSH too (OSC 52).

``/copy`` copies the last answer; ``/copy N`` the N-th entry of the list that ``/copy pick`` shows
(1 = the newest): the last answers and every fenced code block in them, newest first. Textual's
``App.copy_to_clipboard`` writes the OSC 52 sequence the terminal (or the SSH client's terminal)
turns into a clipboard write.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_tui.conversation import Message, TextBlock
from agent_tui.plural import plural

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp

MAX_ENTRIES = 30
_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)
USAGE = "/copy (the last answer), /copy N (entry N of /copy pick), /copy pick (choose one)"


@dataclass(frozen=True)
class Copyable:
    """One thing the user may copy: its label in the picker and the text that is copied."""

    label: str
    text: str


def _preview(text: str, width: int = 60) -> str:
    first = " ".join(text.split())
    return first if len(first) <= width else first[: width - 1] + "…"


def copyables(messages: Sequence[Message]) -> list[Copyable]:
    """The last answers and their code blocks, newest first (within an answer: answer, then code)."""
    entries: list[Copyable] = []
    for message in reversed(messages):
        if message.role != "assistant":
            continue
        text = "\n".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
        if not text:
            continue
        entries.append(Copyable(f"answer: {_preview(text)}", text))
        for code in _FENCE.findall(text):
            entries.append(Copyable(f"  code: {_preview(code)}", code.rstrip("\n")))
        if len(entries) >= MAX_ENTRIES:
            break
    return entries[:MAX_ENTRIES]


def choose(entries: list[Copyable], args: str) -> Copyable | str:
    """The entry ``args`` names ("" = the last answer, "N" = entry N), or a message saying why not."""
    if not entries:
        return "Nothing to copy yet: no answer in this conversation."
    if not args:
        return entries[0]
    if not args.isdigit() or not 1 <= int(args) <= len(entries):
        return f"/copy {args}: pick 1 to {len(entries)}. Usage: {USAGE}"
    return entries[int(args) - 1]


async def copy(app: AgentApp, args: str) -> str:
    """Carry out ``/copy [N|pick]`` in the app; returns the note to show."""
    entries = copyables(app.front.messages)
    if args.strip() == "pick" and entries:
        from agent_tui.ui.screens.copy_picker import CopyPickerScreen

        picked = await app.push_screen_wait(CopyPickerScreen(entries))
        if picked is None:
            return "Nothing copied."
        chosen: Copyable | str = entries[picked]
    else:
        chosen = choose(entries, args.strip())
    if isinstance(chosen, str):
        return chosen
    app.copy_to_clipboard(chosen.text)
    lines = chosen.text.count("\n") + 1
    return f"Copied {chosen.label.strip().split(':')[0]} ({plural(lines, 'line')}) to the clipboard (OSC 52)."
