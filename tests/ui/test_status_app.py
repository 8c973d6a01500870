"""`/status`, `/context` and `/cost` in the app: each answers as a Markdown card, from the
session's own figures (issue 27 item 3)."""

from __future__ import annotations

from textual.widgets import Markdown

from agent_tui.ui.widgets.notes import MarkdownNote
from tests.ui.app_helpers import running_app, send_turns
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_until

USAGE = {"input_tokens": 1200, "output_tokens": 345, "cache_read_tokens": 800}


async def test_status_context_and_cost_show_as_cards_after_a_turn(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "Done, the answer.", "usage": USAGE}])
    async with running_app(h.agent) as (app, pilot):
        await send_turns(pilot, "hello there", "/cost", "/context", "/status")
        await wait_until(pilot, lambda: len(app.query(MarkdownNote)) == 3, "three cards")
        cost, context, status = (note.text for note in app.query(MarkdownNote))
        # The turn's reported usage, for the run and for the last turn alike.
        assert "| session | 1,200 | 345 | 800 | 0 |" in cost
        assert "| last turn | 1,200 | 345 | 800 | 0 |" in cost
        # The conversation the next request carries: the prompt and the answer.
        assert "| messages: user messages (1, with attached files) |" in context
        assert "| messages: assistant answers |" in context
        assert "tokens are left before automatic compaction" in context
        assert "**Mode:** ask" in status
        assert f"**Workspace:** `{h.agent.deps.workspace}`" in status
        for note in app.query(MarkdownNote):  # drawn as Markdown, not raw text
            assert note.query_one(Markdown) is not None
