"""Reading a slash command's name off the prompt (completion, tests).

Commands run in the core (``agent.turn.plan_turn``, reached through ``agent.front.submit``); what
one asks the app to do comes back as an ``agent_tui.actions`` dataclass in ``CommandHandled``.
"""

from __future__ import annotations


def split_command(text: str) -> tuple[str, str] | None:
    """``"/model fast"`` -> ``("model", "fast")``; None when ``text`` is not a slash command."""
    if not text.startswith("/") or len(text) < 2 or text[1].isspace():
        return None
    name, _, args = text[1:].partition(" ")
    return name.strip(), args.strip()
