"""Compaction you can see (issue 23 §10): it says it started and with what figures, it starts
where the context meter reads ``compact_at`` (not at the pruning limit), and a summary that
would not make the context smaller is not kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui import events as ev
from agent_tui.agent.compaction.run import auto_compact, compacting_text
from agent_tui.agent.loop import Agent
from agent_tui.conversation import Message, TextBlock, user_text
from tests.agent.conftest import FAKE_KEY_ENV, fake_agent
from tests.fakes.llm_server import FakeLLM

LONG = "word " * 1_200  # 1,500 estimated tokens


def with_turns(tmp_path: Path, fake: FakeLLM, turns: int, **model: int) -> Agent:
    agent = fake_agent(tmp_path, fake, "anthropic", **model)
    for n in range(turns):
        agent.conversation.append(user_text(f"OLD-QUESTION-{n} {LONG}"))
        agent.conversation.append(Message("assistant", [TextBlock(f"OLD-ANSWER-{n}")]))
    return agent


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")


async def test_compaction_says_it_started_with_the_figures_the_meter_uses(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    agent = with_turns(tmp_path, fake_llm, 4, context_window=8_000, max_tokens=500)
    fake_llm.set_script([{"text": "SUMMARY-OF-OLD"}, {"text": "the answer"}])
    events = [event async for event in agent.run("next question")]
    kinds = [type(e).__name__ for e in events]
    started = kinds.index("CompactionStarted")
    assert kinds[started + 1] == "UsageUpdated"  # nothing between it and the summary's answer
    (begun,) = [e for e in events if isinstance(e, ev.CompactionStarted)]
    (compacted,) = [e for e in events if isinstance(e, ev.ConversationCompacted)]
    answer_usage = [e for e in events if isinstance(e, ev.UsageUpdated)][-1]
    assert begun.automatic and begun.tokens == compacted.tokens_before
    # The same 100 % as the meter: the window less the reply's share.
    assert begun.limit == answer_usage.context_limit == 8_000 - 500
    text = compacting_text(begun)
    assert (
        text
        == f"compacting ≈{begun.tokens:,} tokens ({round(100 * begun.tokens / 7_500)} % of the context)…"
    )


@pytest.mark.parametrize(("turns", "compacts"), [(4, False), (5, True)])
async def test_automatic_compaction_starts_where_the_meter_reads_compact_at(
    tmp_path: Path, fake_llm: FakeLLM, turns: int, compacts: bool
) -> None:
    """A window of 16,000 with 8,000 kept for the reply: requests hold 8,000, the meter's 100 %.

    Four turns are about 6,000 tokens (75 % on the meter): no compaction. Five are about 7,500
    (94 %): compaction, though pruning (past 8,000) would not start yet — the old trigger
    waited for it, at 50 % of the window.
    """
    agent = with_turns(tmp_path, fake_llm, turns, context_window=16_000, max_tokens=8_000)
    agent.conversation.append(user_text("next question"))
    fake_llm.set_script([{"text": "SUMMARY-OF-OLD"}])
    events = [event async for event in auto_compact(agent, "", 0)]
    assert any(isinstance(e, ev.ConversationCompacted) for e in events) is compacts
    assert len(fake_llm.requests) == (1 if compacts else 0)


async def test_a_longer_summary_is_not_kept_and_not_asked_again_this_turn(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    agent = with_turns(tmp_path, fake_llm, 4, context_window=8_000, max_tokens=500)
    before = list(agent.conversation.messages)
    # A summary longer than the turns it stands for; then the answer, after pruning.
    fake_llm.set_script([{"text": "RAMBLING " * 3_000}, {"text": "the answer"}])
    events = [event async for event in agent.run("next question")]
    notices = [e.text for e in events if isinstance(e, ev.Notice)]
    assert any(n.startswith("Compaction not kept: with the summary the context") for n in notices)
    assert not any(isinstance(e, ev.ConversationCompacted) for e in events)
    assert agent.conversation.messages[: len(before)] == before
    assert any(isinstance(e, ev.ContextPruned) for e in events)  # pruning did the job
    assert len(fake_llm.requests) == 2  # one summary request, not one per round
    assert "RAMBLING" not in str(fake_llm.requests[1])
