"""``/compact`` in the app (issue 12 §3): a collapsed card that opens on the summary.

The scripted provider answers three turns, then the summary request; the card says what was
replaced, hides the summary until opened, and the model's control characters stay visible.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Markdown

from agent_tui.conversation import is_summary
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.compaction_card import CompactionCard
from agent_tui.ui.widgets.notes import Note, UserMessage
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle

SUMMARY = (
    "## Goals and constraints\n- Fix the config parser; keep Python 3.11.\n\n"
    "## Files\n- `config.py`: parser rewritten, tests pass.\n\n"
    "## Open tasks\n- Document the new key.\x1b[2J"
)
SIZE = (100, 32)


def script() -> list[dict[str, Any]]:
    return [{"text": "first answer"}, {"text": "second answer"}, {"text": "third answer"}] + [
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
