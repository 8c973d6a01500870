"""Compact the conversation: ``/compact [focus]`` and automatically near the context window.

``compact`` asks the model for a summary of the older part (``summarize``), puts it in place of
that part (``Conversation.compact``) and yields the events: the summary request's usage, then
``ConversationCompacted``. Only what is sent changes; the session file keeps every message.

Automatic compaction (``auto_compact``) runs before a request is built, when the estimate of the
whole conversation passes ``[agent] compact_at`` of what a request may hold (the window less the
reply's share: the context meter's 100 %, where the budget starts pruning): a summary keeps more
than pruning, which drops old turns whole. ``CompactionStarted`` says it began (the summary
request takes as long as an answer). When the summary request fails, or the summary would not
make the context smaller (then the original stays), pruning does the job and a notice says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.agent.compaction.boundary import compaction_point
from agent_tui.agent.compaction.summarize import request_summary, summary_request
from agent_tui.agent.prompt import split_attachments
from agent_tui.conversation import (
    CHARS_PER_TOKEN,
    SUMMARY_HEADER,
    Conversation,
    Message,
    TextBlock,
    estimate_tokens,
)
from agent_tui.errors import ProviderError, UsageError
from agent_tui.plural import plural

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent

DEFAULT_COMPACT_AT = 0.85
DEFAULT_KEEP = 2
# An automatic compaction must take away at least this share of the request to be worth a call.
MIN_GAIN = 0.25
FAILED_KEY = "compaction_failed_for"  # in SessionState.extras
MAX_REQUEST_CHARS = 8_000
REQUEST_MARKER = "The user's request this turn is working on (verbatim):\n"


@dataclass(frozen=True)
class CompactionSettings:
    """When automatic compaction starts and how many recent turns it keeps verbatim."""

    compact_at: float = DEFAULT_COMPACT_AT  # share of the window; 0 turns automatic off
    keep: int = DEFAULT_KEEP  # user turns (in one long turn: rounds) kept verbatim

    @classmethod
    def from_config(cls, raw: dict[str, Any]) -> CompactionSettings:
        agent = raw.get("agent", {})
        return cls(
            float(agent.get("compact_at", DEFAULT_COMPACT_AT)),
            int(agent.get("compact_keep", DEFAULT_KEEP)),
        )


def _estimate(messages: list[Message], system: str, tools_chars: int, scale: float) -> int:
    fixed = estimate_tokens(system) + -(-tools_chars // CHARS_PER_TOKEN)
    return int((fixed + sum(m.tokens for m in messages)) * scale)


async def compact(
    agent: Agent,
    focus: str = "",
    *,
    automatic: bool = False,
    system: str = "",
    tools_chars: int = 0,
) -> AsyncIterator[ev.Event]:
    """Replace the older part of the conversation with a summary, yielding the events.

    Args:
        agent: the session (its conversation, model, provider and context budget).
        focus: what the summary should concentrate on (``/compact <focus>``).
        automatic: started by the window filling up, not by the user.
        system, tools_chars: the next request's system prompt and tool schemas, for the estimate.

    Raises:
        UsageError: nothing to compact yet (too few turns).
        ProviderError: the summary request failed; the conversation is unchanged.
    """
    settings = CompactionSettings.from_config(agent.deps.config.raw)
    messages = list(agent.conversation.messages)
    upto = compaction_point(messages, settings.keep)
    if upto is None:
        raise UsageError(
            f"nothing to compact yet: the last {plural(settings.keep, 'turn')} are kept as they "
            "are ([agent] compact_keep)"
        )
    for problem in await _pre_compact(agent, focus, automatic):
        yield ev.Notice(problem, "warning")
    model = agent.model
    scale = agent.budget.token_scale.get(model.name, 1.0)
    before = _estimate(messages, system, tools_chars, scale)
    # The summary request takes as long as an answer: say what is happening meanwhile.
    yield ev.CompactionStarted(automatic, before, prompt_limit(agent) if automatic else 0)
    request = summary_request(model, agent.budget.window(model), messages[:upto], focus, scale)
    summary = await request_summary(agent.deps.provider, request)
    agent.totals.spent.add(model.name, summary.usage)
    spent = agent.totals.spent
    yield ev.UsageUpdated(summary.usage, spent.usage, spent.usd(), model=model.name)
    if agent.conversation.messages[:upto] != messages[:upto]:
        raise ProviderError("the conversation changed while it was being summarised; not compacted")
    # The event carries exactly what compact() was given: a session replays it from the event.
    text = summary.text + _request_kept(messages, upto)
    after = _estimate(_compacted(messages, upto, text), system, tools_chars, scale)
    if after >= before:
        yield ev.Notice(not_smaller_note(before, after), "warning")
        return
    agent.conversation.compact(upto, text)
    yield ev.ConversationCompacted(text, upto, automatic, before, after)


def _compacted(messages: list[Message], upto: int, text: str) -> list[Message]:
    """The messages as they would be with the first ``upto`` replaced by the summary ``text``."""
    trial = Conversation(list(messages))
    trial.compact(upto, text)
    return list(trial.messages)


async def _pre_compact(agent: Agent, focus: str, automatic: bool) -> list[str]:
    """Run the PreCompact hooks; what they reported as problems."""
    from agent_tui.hooks.agent_hooks import fire

    trigger = {"trigger": "auto" if automatic else "manual", "custom_instructions": focus}
    # Claude Code's PreCompact matcher takes the trigger: "manual" or "auto".
    return list((await fire(agent.deps, "PreCompact", trigger, tool=trigger["trigger"])).errors)


def not_smaller_note(before: int, after: int) -> str:
    """Why a compaction was not kept: its summary would not have made the context smaller."""
    return (
        f"Compaction not kept: with the summary the context would be about {after:,} tokens, "
        f"not less than the {before:,} it has now; the conversation stays as it was."
    )


def _request_kept(messages: list[Message], upto: int) -> str:
    """The current turn's request, verbatim, when the cut lands inside that turn.

    A long ``-p`` run is one turn: its request would otherwise survive only as the model's
    paraphrase. Attachments and an earlier summary stay out (the summary covers them).
    """
    start = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].starts_turn), None)
    if start is None or start >= upto:
        return ""
    request, _ = split_attachments(messages[start])
    # An earlier compaction inside this turn left the request after its own summary.
    text = "\n".join(
        b.text.partition(REQUEST_MARKER)[2] if b.text.startswith(SUMMARY_HEADER) else b.text
        for b in request.content
        if isinstance(b, TextBlock)
    ).strip()
    if not text:
        return ""
    if len(text) > MAX_REQUEST_CHARS:
        text = text[:MAX_REQUEST_CHARS] + " […]"
    return f"\n\n{REQUEST_MARKER}{text}"


def prompt_limit(agent: Agent) -> int:
    """The tokens a request may hold: the context meter's 100 %, where pruning starts."""
    return agent.budget.prompt_limit(agent.model)


async def auto_compact(agent: Agent, system: str, tools_chars: int) -> AsyncIterator[ev.Event]:
    """Compact first when the next request passes ``compact_at`` of the window or would prune.

    Yields nothing when there is no need or nothing worth replacing; a failed summary request
    yields a notice and leaves the conversation to pruning (tried once per user turn).
    """
    settings = CompactionSettings.from_config(agent.deps.config.raw)
    if settings.compact_at <= 0:
        return
    messages = list(agent.conversation.messages)
    scale = agent.budget.token_scale.get(agent.model.name, 1.0)
    estimate = _estimate(messages, system, tools_chars, scale)
    # The same 100 % as the meter (UsageUpdated.context_limit): compaction starts where the
    # meter reads compact_at, before pruning at 100 % (never past it, whatever compact_at says).
    if estimate <= int(prompt_limit(agent) * min(settings.compact_at, 1.0)):
        return
    upto = compaction_point(messages, settings.keep)
    if upto is None or _estimate(messages[:upto], "", 0, scale) < estimate * MIN_GAIN:
        return
    # The request that started this turn: a failed summary request is not tried again before
    # the next one (a provider that is down would otherwise be asked every round).
    request = next((m for m in reversed(messages) if m.starts_turn), None)
    extras = agent.deps.session.extras
    if request is not None and extras.get(FAILED_KEY) is request:
        return
    try:
        compacted = False
        async for event in compact(agent, automatic=True, system=system, tools_chars=tools_chars):
            compacted = compacted or isinstance(event, ev.ConversationCompacted)
            yield event
        if not compacted:  # the summary was not smaller: pruning, and no new try this turn
            extras[FAILED_KEY] = request
    except (ProviderError, UsageError) as exc:
        extras[FAILED_KEY] = request
        yield ev.Notice(
            f"Automatic compaction failed ({exc}); older context is pruned instead.", "warning"
        )


def compaction_note(event: ev.ConversationCompacted) -> str:
    """The one-line note of a compaction (TUI card title, ``note:`` line, json ``notices``)."""
    why = "Context near the window: compacted automatically" if event.automatic else "Compacted"
    return (
        f"{why}: {plural(event.replaced, 'earlier message')} replaced by a summary "
        f"(about {event.tokens_before:,} → {event.tokens_after:,} tokens)"
    )


def compacting_text(event: ev.CompactionStarted) -> str:
    """What is happening while the summary is written: ``compacting ≈3,650 tokens (89 % of the
    context)…`` (status bar, ``-p``'s ``note:`` line)."""
    share = f" ({round(100 * event.tokens / event.limit)} % of the context)" if event.limit else ""
    return f"compacting ≈{event.tokens:,} tokens{share}…"
