"""Tell the user, when the terminal is not focused, that a turn ended or an approval waits.

``[ui] notify``: ``"off"``, ``"bell"`` (BEL, the default) or ``"desktop"`` (a desktop notification
through the terminal: OSC 777 in terminals of the rxvt/VTE/foot family, else OSC 9, which iTerm2,
WezTerm, Windows Terminal, Ghostty and kitty show). Focus comes from the terminal's focus reports
(Textual turns them into ``App.app_focus``); a terminal that never reports stays "focused", so it
is never bothered.

The message may quote the model or a tool: it goes through ``one_line`` (no control characters,
so it cannot end the sequence early or start another), loses ``;`` (OSC 777's field separator) and
is capped, so an escape sequence cannot be smuggled into the user's terminal.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from agent_tui.conversation import Message
from agent_tui.text_safety import one_line

if TYPE_CHECKING:
    from agent_tui.front.views import UiSettings
    from agent_tui.ui.app import AgentApp

MODES = ("off", "bell", "desktop")
DEFAULT_MODE = "bell"
MAX_CHARS = 120
TITLE = "agent-tui"


def notify_mode(settings: UiSettings) -> str:
    """The configured ``[ui] notify`` mode (the schema has already checked the value)."""
    value = settings.notify
    return value if value in MODES else DEFAULT_MODE


def _clean(text: str) -> str:
    flat = one_line(text).replace(";", ",")
    # one_line shows controls as pictures (␛); ESC/BEL/ST cannot survive it, but be explicit.
    flat = "".join(ch for ch in flat if ch.isprintable())
    return flat if len(flat) <= MAX_CHARS else flat[: MAX_CHARS - 1] + "…"


def _prefers_osc777(env: Mapping[str, str]) -> bool:
    term = env.get("TERM", "")
    return "VTE_VERSION" in env or "rxvt" in term or term.startswith("foot")


def notification_sequence(mode: str, message: str, env: Mapping[str, str] | None = None) -> str:
    """The bytes to write for ``message`` under ``mode`` ("" for off)."""
    if mode == "bell":
        return "\a"
    if mode != "desktop":
        return ""
    body = _clean(message)
    if _prefers_osc777(os.environ if env is None else env):
        return f"\x1b]777;notify;{TITLE};{body}\x1b\\"
    return f"\x1b]9;{TITLE}: {body}\x1b\\"


def turn_end_message(messages: Sequence[Message]) -> str:
    """ "Turn finished: <the start of the last answer>" (the answer is cleaned when written)."""
    from agent_tui.ui.copy_flow import copyables

    answers = copyables(messages)
    return f"done: {answers[0].text}" if answers else "turn finished"


def notify_if_away(app: AgentApp, message: str) -> bool:
    """Write the notification when the terminal is not focused; True if one was written."""
    if app.app_focus:
        return False
    sequence = notification_sequence(notify_mode(app.front.settings()), message)
    driver = app._driver  # noqa: SLF001 (Textual has no public way to write raw bytes)
    if not sequence or driver is None:
        return False
    driver.write(sequence)
    driver.flush()
    return True
