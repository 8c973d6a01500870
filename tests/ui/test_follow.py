"""New content the person caused is in view; content they did not cause does not yank them
(issue 23 §7): after paging up, a prompt sent or a command's output (``/help``, ``/resume``)
scrolls the transcript to its end, while an answer streaming in leaves a reader where they are."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import OptionList

from agent_tui.agent.resume import attach_app
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import UserMessage
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until

LONG = "\n\n".join(f"line {n}" for n in range(120))


def at_end(app: AgentApp) -> bool:
    transcript = app.transcript
    return transcript.max_scroll_y > 0 and transcript.scroll_y >= transcript.max_scroll_y


async def page_up(pilot: Pilot[object], app: AgentApp) -> None:
    await pilot.press("pageup", "pageup")
    await wait_until(pilot, lambda: not at_end(app), "the transcript to scroll up")


async def test_a_prompt_sent_after_paging_up_is_in_view(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": LONG}, {"text": "short answer"}])
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await send(pilot, "long please")
        await wait_idle(pilot)
        await page_up(pilot, app)
        await send(pilot, "and now?")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: at_end(app), "the transcript at its end")
        said = app.query(UserMessage).last()
        assert said.text == "and now?" and said.region.height > 0  # on screen


async def test_command_output_after_paging_up_is_in_view(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": LONG}])
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await send(pilot, "long please")
        await wait_idle(pilot)
        await page_up(pilot, app)
        await send(pilot, "/context")
        await wait_idle(pilot)
        await wait_until(pilot, lambda: at_end(app), "the command's output at the end")


async def test_a_resumed_session_is_shown_from_its_end(make_agent: MakeAgent) -> None:
    old = make_agent([{"text": LONG}])
    attach_app(old.agent, cont=False, resume_id=None)
    async with running_app(old.agent) as (app, pilot):
        await send(pilot, "the old topic")
        await wait_idle(pilot)
    h = make_agent([{"text": LONG}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start, size=(80, 24)) as (app, pilot):
        await send(pilot, "a new topic")
        await wait_idle(pilot)
        await page_up(pilot, app)
        await send(pilot, "/resume")
        await wait_screen(pilot, "SessionPickerScreen")
        assert app.screen.query_one(OptionList).option_count == 1
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: h.agent.conversation.messages[0].text == "the old topic", "the resume"
        )
        await wait_until(pilot, lambda: at_end(app), "the resumed session shown from its end")


async def test_an_answer_streaming_in_leaves_a_reader_where_they_are(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": LONG}, {"text": LONG + "\n\nSTREAMED-TO-THE-END"}], chunk_delay=0.01)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await send(pilot, "long please")
        await wait_idle(pilot)
        await send(pilot, "again")
        await wait_until(pilot, lambda: app.busy and at_end(app), "the answer streaming")
        await page_up(pilot, app)
        reading = app.transcript.scroll_y
        await wait_idle(pilot)
        assert app.transcript.scroll_y == reading and not at_end(app)
