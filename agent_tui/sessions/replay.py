"""The events that draw a saved session's transcript again.

The file holds messages and the events the live turn drew from (tool calls, decisions, results,
notices, errors); the answer's text was drawn from deltas, which are not saved, so it is given
back as one ``TextDelta`` (and ``ThinkingDelta``) per assistant message of a turn. The consumer
feeds these to the same code that draws a live turn (``ui/render.TurnView``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from agent_tui import events as ev
from agent_tui.conversation import TextBlock, ThinkingBlock
from agent_tui.sessions.loader import CompactionEntry, Entry, MessageEntry, RewindEntry


@dataclass(frozen=True)
class Cleared:
    """The conversation was cleared (``/clear``): what came before is not drawn."""


Drawn = ev.Event | Cleared


def replay_events(entries: list[Entry], in_turn: bool = False) -> Iterator[Drawn]:
    """The drawing events of ``LoadedSession.drawable()``'s entries, in order.

    ``in_turn``: the entries start inside a turn (a part of a long turn drawn on its own).
    """
    drawn_upto = 0  # messages before this index were drawn (a rewritten tail is not drawn twice)
    for entry in entries:
        if isinstance(entry, RewindEntry):
            if entry.to == 0:
                drawn_upto = 0
                yield Cleared()
        elif isinstance(entry, CompactionEntry):
            continue
        elif isinstance(entry, MessageEntry):
            message = entry.message
            if not in_turn or message.role != "assistant" or entry.index < drawn_upto:
                continue
            drawn_upto = entry.index + 1
            for block in message.content:
                if isinstance(block, ThinkingBlock) and block.text:
                    yield ev.ThinkingDelta(block.text)
                elif isinstance(block, TextBlock) and block.text:
                    yield ev.TextDelta(block.text)
        else:
            if isinstance(entry, ev.TurnStarted):
                in_turn = True
            elif isinstance(entry, ev.TurnFinished):
                in_turn = False
            yield entry
