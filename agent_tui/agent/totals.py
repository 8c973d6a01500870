"""A session's totals across its runs: tokens and money per model, and the lines its edits changed.

**Spending.** Each model answer (a sub-agent's, a compaction's summary) adds its usage under the
model that gave it (``Spent.add``); money prices each model's part at its own list price
(``agent/pricing.py``), so a session that switched models is priced part by part. It is None when
a part was spent on a model with no known price (a wrong figure is worse than none).

**Lines.** An edit tool's result shows its change as a unified diff (create_file,
replace_string_in_file, apply_patch); its added and removed lines count for the turn it ran in
(``EditLines``), keyed as checkpoints key turns: by the index of the turn's prompt message. A turn
whose files ``/undo`` (or ``/rewind`` of the code) put back, or which ``/rewind`` cut from the
conversation, no longer counts, as ``sessions/timeline.py`` reads the same log.

**Across runs.** The session file holds both: every answer's ``usage`` event line carries the
session's ``total`` and ``cost_usd`` so far, and each ``turn_finished`` line the turn's
``lines_added`` / ``lines_removed``. ``restore`` reads them back when a session is resumed
(``--continue``, ``--resume``, ``/resume``, ``/fork``, ACP ``session/load``); a file written before
these figures existed has none of the line fields and starts the lines at zero.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.agent.pricing import add_usage, cost_usd
from agent_tui.providers.base import Usage

if TYPE_CHECKING:
    from agent_tui.sessions.loader import LoadedSession

# The tools whose result's ``display`` is the unified diff of what they changed.
EDIT_TOOLS = frozenset({"create_file", "replace_string_in_file", "apply_patch"})


@dataclass
class Spent:
    """Tokens and money: ``earlier`` runs' (read back from the session file) and this run's,
    per model."""

    earlier: Usage = field(default_factory=Usage)
    earlier_usd: float | None = 0.0
    by_model: dict[str, Usage] = field(default_factory=dict)

    def add(self, model: str, usage: Usage) -> None:
        self.by_model[model] = add_usage(self.by_model.get(model, Usage()), usage)

    @property
    def usage(self) -> Usage:
        total = self.earlier
        for usage in self.by_model.values():
            total = add_usage(total, usage)
        return total

    def usd(self) -> float | None:
        """The money spent, each model's part at its price; None when a part has no price."""
        total = self.earlier_usd
        if total is None and _spent_any(self.earlier):
            return None
        total = total or 0.0
        for model, usage in self.by_model.items():
            price = cost_usd(model, usage)
            if price is None:
                return None
            total += price
        return total


@dataclass
class EditLines:
    """Lines added and removed by the edits of each turn that counts, by its prompt's index."""

    turns: dict[int, tuple[int, int]] = field(default_factory=dict)

    @property
    def added(self) -> int:
        return sum(added for added, _ in self.turns.values())

    @property
    def removed(self) -> int:
        return sum(removed for _, removed in self.turns.values())

    def of_turn(self, index: int | None) -> tuple[int, int]:
        return self.turns.get(index, (0, 0)) if index is not None else (0, 0)

    def count(self, index: int | None, finished: ev.ToolCallFinished) -> None:
        """Add what an edit call of the turn at ``index`` changed (other calls add nothing)."""
        if index is None or finished.name not in EDIT_TOOLS or finished.result.is_error:
            return
        added, removed = diff_counts(finished.result.display or "")
        if added or removed:
            before = self.of_turn(index)
            self.turns[index] = (before[0] + added, before[1] + removed)

    def observe(self, event: ev.Event) -> None:
        """An undo or a rewind takes its turns' lines back out."""
        if isinstance(event, ev.CheckpointRestored):
            for index in event.turns:
                self.turns.pop(index, None)
            if event.conversation_to is not None:
                self.cut(event.conversation_to)
        elif isinstance(event, ev.ConversationRewound):
            self.cut(event.to)

    def cut(self, to: int) -> None:
        """The conversation was cut at message ``to``: the turns from there on are gone."""
        for index in [i for i in self.turns if i >= to]:
            del self.turns[index]


@dataclass
class SessionTotals:
    """What the session has spent and changed (see the module docstring)."""

    spent: Spent = field(default_factory=Spent)
    lines: EditLines = field(default_factory=EditLines)


def diff_counts(diff: str) -> tuple[int, int]:
    """The lines a unified diff adds and removes, read by its hunks' headers (a removed line
    that itself starts with ``--`` is not taken for a file header)."""
    added = removed = 0
    old_left = new_left = 0
    for line in diff.splitlines():
        if old_left > 0 or new_left > 0:
            if line.startswith("+"):
                added, new_left = added + 1, new_left - 1
            elif line.startswith("-"):
                removed, old_left = removed + 1, old_left - 1
            elif line.startswith(" ") or line == "":
                old_left, new_left = old_left - 1, new_left - 1
            continue  # "\ No newline at end of file" counts for neither side
        if line.startswith("@@"):
            old_left, new_left = _hunk_sizes(line)
    return added, removed


def _hunk_sizes(header: str) -> tuple[int, int]:
    """``@@ -12,3 +12,4 @@`` -> (3, 4); a range without a count is one line."""
    parts = header.split()
    try:
        old, new = parts[1], parts[2]
        return _range_size(old, "-"), _range_size(new, "+")
    except (IndexError, ValueError):
        return 0, 0


def _range_size(text: str, sign: str) -> int:
    if not text.startswith(sign):
        raise ValueError(text)
    _, _, count = text[1:].partition(",")
    return int(count) if count else 1


def _spent_any(usage: Usage) -> bool:
    return any(
        (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens)
    )


def restore(loaded: LoadedSession) -> SessionTotals:
    """The totals ``loaded``'s earlier runs left: the last ``usage`` line's session figures, and
    the lines of the turns that stand, not undone (``sessions/timeline.py``)."""
    from agent_tui.sessions.loader import RawEvent
    from agent_tui.sessions.timeline import standing

    totals = SessionTotals()
    entries = loaded.entries
    kind = ev.UsageUpdated.type
    last = next(
        (
            i
            for i in range(len(entries) - 1, -1, -1)
            if isinstance(entry := entries[i], RawEvent) and entry.kind == kind
        ),
        None,
    )
    if last is not None:
        for event in loaded.drawable(last, last + 1):  # read back from the file, decoded
            if isinstance(event, ev.UsageUpdated):
                totals.spent = _earlier(event)
    for turn in standing(loaded).turns:
        if not turn.undone and turn.prompt_index >= 0 and (turn.lines_added or turn.lines_removed):
            totals.lines.turns[turn.prompt_index] = (turn.lines_added, turn.lines_removed)
    return totals


def _earlier(event: ev.UsageUpdated) -> Spent:
    """What a ``usage`` line says was spent, its figures checked (the file is plain JSON)."""
    total = event.total if isinstance(event.total, Usage) else Usage()
    counts = [_tokens(getattr(total, name)) for name in _USAGE_FIELDS]
    money = event.cost_usd
    usd = float(money) if isinstance(money, int | float) and not isinstance(money, bool) else None
    return Spent(Usage(*counts), usd if usd is None or usd >= 0 else None)


_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


def _tokens(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0
