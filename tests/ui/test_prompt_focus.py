"""Typing always reaches the prompt; PageUp/PageDown scroll the transcript (issue 11 §7).

Before the fix, after a click in the transcript or on a card, or Tab, typed keys went nowhere and
Enter did nothing; PageUp/PageDown moved the prompt's cursor instead of the transcript.
"""

from __future__ import annotations

from textual.widgets import Markdown

from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.prompt_input import PromptInput
from agent_tui.ui.widgets.tool_card import DetailsToggle, ToolCard
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until

LOOK_CALL = {"id": "call_1", "name": "look_around", "input": {}}


async def test_typing_after_a_click_in_the_transcript_goes_to_the_prompt(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "first answer"}, {"text": "second answer"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "one")
        await wait_idle(pilot)
        prompt = app.query_one(PromptInput)
        await pilot.click("#transcript", offset=(10, 2))
        assert not prompt.has_focus
        await pilot.press(*"two words")
        assert prompt.has_focus
        assert prompt.text == "two words"
        await pilot.press("enter")
        await wait_idle(pilot)
        assert [u.text for u in app.query(UserMessage)] == ["one", "two words"]


async def test_typing_after_tab_goes_to_the_prompt(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "hi"}])
    async with running_app(h.agent) as (app, pilot):
        prompt = app.query_one(PromptInput)
        prompt.load_text("ab")
        prompt.move_cursor(prompt.document.end)
        await pilot.press("tab")
        assert not prompt.has_focus
        await pilot.press("c", "?", "1")
        assert prompt.has_focus and prompt.text == "abc?1"


async def test_typing_after_a_click_on_a_card_goes_to_the_prompt_and_space_still_toggles(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"tool_calls": [LOOK_CALL]}, {"text": "looked"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "look")
        await wait_idle(pilot)
        toggle = app.query_one(DetailsToggle)
        await pilot.click(DetailsToggle)
        assert toggle.has_focus
        card = app.query_one(ToolCard)
        opened = card.details_open
        await pilot.press("space")  # the toggle's own binding keeps working
        assert card.details_open is not opened
        await pilot.press("x")
        prompt = app.query_one(PromptInput)
        assert prompt.has_focus and prompt.text == "x"


async def test_page_up_and_down_in_the_prompt_scroll_the_transcript(make_agent: MakeAgent) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        transcript = app.transcript
        for n in range(60):
            await transcript.add(Note(f"note {n}"))
        transcript.scroll_end(animate=False)
        await pilot.pause()
        bottom = transcript.scroll_y
        assert bottom > 0
        prompt = app.query_one(PromptInput)
        prompt.load_text("line one\nline two")
        prompt.focus()
        await pilot.press("pageup")
        await wait_until(pilot, lambda: transcript.scroll_y < bottom, "the transcript to scroll up")
        assert prompt.has_focus and prompt.text == "line one\nline two"
        up = transcript.scroll_y
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: transcript.scroll_y > up, "the transcript to scroll down")


async def test_help_says_typing_returns_to_the_prompt_and_page_keys_scroll(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("f1")
        await wait_screen(pilot, "HelpScreen")
        source = app.screen.query_one(Markdown).source
        assert "PageUp / PageDown" in source and "scroll the transcript" in source
        assert "always goes to the prompt" in source
