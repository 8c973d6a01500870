"""``/compact`` in the app (issue 12 §3): a collapsed card that opens on the summary.

The scripted provider answers three turns, then the summary request; the card says what was
replaced, hides the summary until opened, and the model's control characters stay visible.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Markdown

from agent_tui.conversation import Message, TextBlock, is_summary, user_text
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.compaction_card import CompactionCard
from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.status_bar import StatusBar
from tests.agent.conftest import fake_agent, fake_agent_workspace
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until

SUMMARY = (
    "## Goals and constraints\n- Fix the config parser; keep Python 3.11.\n\n"
    "## Files\n- `config.py`: parser rewritten, tests pass.\n\n"
    "## Open tasks\n- Document the new key.\x1b[2J"
)
SIZE = (100, 32)


# Longer than the summary: a summary that would not make the context smaller is not kept.
FIRST_ANSWER = "first answer: " + "the parser reads each key of the file in turn. " * 10


def script() -> list[dict[str, Any]]:
    return [{"text": FIRST_ANSWER}, {"text": "second answer"}, {"text": "third answer"}] + [
        {"text": SUMMARY}
    ]


async def three_turns_then_compact(pilot: Pilot[Any]) -> None:
    for prompt in ("fix the parser", "and the tests", "now the docs"):
        await send(pilot, prompt)
        await wait_idle(pilot)
    await send(pilot, "/compact the parser")
    await wait_idle(pilot)


async def test_compact_shows_a_collapsed_card_that_opens_on_the_summary(
    make_agent: MakeAgent,
) -> None:
    h = make_agent(script())
    async with running_app(h.agent, size=SIZE) as (app, pilot):
        await three_turns_then_compact(pilot)
        card = app.query_one(CompactionCard)
        assert card.collapsed
        assert card.title.startswith("Compacted: 2 earlier messages replaced by a summary")
        summary_request = h.provider.requests[-1]
        asked = summary_request.messages[-1].text
        assert "fix the parser" in asked and "Focus on: the parser" in asked
        assert "now the docs" not in asked  # the last two turns stay verbatim
        assert is_summary(h.agent.conversation.messages[0])
        # The /compact message is a command, not a turn the model left unanswered.
        assert not app.query(UserMessage).last().has_class("-unanswered")

        await pilot.click(card.query_one("CollapsibleTitle"))
        await pilot.pause()
        assert not card.collapsed
        shown = card.query_one(Markdown).source
        assert "Fix the config parser" in shown and "\x1b" not in shown and "␛" in shown


def test_compaction_card_snapshot(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: three short turns, "/compact the parser", then a card with a left
    bar reading "▶ Compacted: 2 earlier messages replaced by a summary (about … → … tokens)";
    the summary itself is folded away.
    """
    h = make_agent(script())
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await three_turns_then_compact(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_compaction_card_open_snapshot(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: the compaction card opened ("▼ Compacted: …"), the summary under it
    as Markdown (headings Goals and constraints, Files, Open tasks), the escape shown as ␛."""
    h = make_agent(script())
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await three_turns_then_compact(pilot)
        await pilot.click(pilot.app.query_one(CompactionCard).query_one("CollapsibleTitle"))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_compact_with_nothing_to_compact_is_an_error_not_an_unanswered_message(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "only answer"}])
    async with running_app(h.agent, size=SIZE) as (app, pilot):
        await send(pilot, "one question")
        await wait_idle(pilot)
        await send(pilot, "/compact")
        await wait_idle(pilot)
        assert not app.query(CompactionCard)
        errors = [n.text for n in app.query(Note) if n.level == "error"]
        assert errors and "/compact: nothing to compact yet" in errors[-1]
        assert not app.query(UserMessage).last().has_class("-unanswered")


async def test_the_status_bar_says_compacting_with_its_figures_while_the_summary_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    """Issue 23 §10: automatic compaction ran 24 s with only "working" in the status bar."""
    workspace = fake_agent_workspace(tmp_path, monkeypatch)
    agent = fake_agent(workspace, fake_llm, "anthropic", context_window=8_000, max_tokens=500)
    for n in range(4):
        agent.conversation.append(user_text(f"OLD-QUESTION-{n} " + "word " * 1_200))
        agent.conversation.append(Message("assistant", [TextBlock(f"OLD-ANSWER-{n}")]))
    fake_llm.set_script([{"text": "SUMMARY-OF-OLD"}, {"text": "the answer"}])
    fake_llm.hold_after = 0  # the summary request is answered only once released
    async with running_app(agent, size=(140, 30)) as (app, pilot):
        bar = app.query_one(StatusBar)
        await send(pilot, "next question")
        await wait_until(pilot, lambda: "◌ compacting ≈" in str(bar.render()), "compacting shown")
        shown = str(bar.render())
        assert "% of the context)…" in shown and "working" not in shown
        fake_llm.release.set()
        await wait_idle(pilot)
        assert "compacting" not in str(bar.render())
        assert app.query_one(CompactionCard).title.startswith("Context near the window")
