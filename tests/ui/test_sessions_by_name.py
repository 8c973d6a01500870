"""The app's /rename, /export and /fork (issue 27 item 1), under Pilot: the name reaches the file
and the /resume list (searched by it, a hostile one shown escaped and capped), the export is
written where asked, and a fork goes on under a new id while the original file stays as it was."""

from __future__ import annotations

import json

from textual.widgets import Input, OptionList

from agent_tui.agent.resume import attach_app
from agent_tui.paths import state_dir
from agent_tui.sessions import SessionStore
from agent_tui.ui.widgets.notes import MarkdownNote, Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


def _notes(app: object) -> list[str]:
    """What the app said: its notes and the commands' Markdown answers."""
    notes = [str(n.render()) for n in app.query(Note)]  # type: ignore[attr-defined]
    return notes + [m.text for m in app.query(MarkdownNote)]  # type: ignore[attr-defined]


async def _named_session(make_agent: MakeAgent, prompt: str, name: str) -> str:
    h = make_agent([{"text": f"answer to {prompt}"}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, prompt)
        await wait_idle(pilot)
        await send(pilot, f"/rename {name}")
        await wait_until(pilot, lambda: any("Renamed" in n for n in _notes(app)), "the rename")
    assert h.agent.recorder is not None
    return h.agent.recorder.session_id


async def test_rename_names_the_session_and_the_picker_finds_it_by_name(
    make_agent: MakeAgent,
) -> None:
    named = await _named_session(make_agent, "first question", "Login flow")
    hostile = "evil\x1b]0;pwned\x07 " + "w" * 10_000
    await _named_session(make_agent, "second question", hostile)
    infos = {i.id: i for i in SessionStore(state_dir(), make_agent([]).workspace).list()}
    assert infos[named].name == "Login flow" and infos[named].title == "first question"

    h = make_agent([])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start, size=(100, 30)) as (app, pilot):
        await send(pilot, "/resume")
        await wait_screen(pilot, "SessionPickerScreen")
        options = app.screen.query_one(OptionList)
        rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
        evil = next(r for r in rows if r.startswith("evil"))
        assert "\x1b" not in evil and "␛]0;pwned␇" in evil and len(evil) < 120
        app.screen.query_one(Input).value = "login"
        await wait_until(pilot, lambda: options.option_count == 1, "the search by name")
        assert str(options.get_option_at_index(0).prompt).startswith("Login flow")
        await pilot.press("enter")
        await wait_until(pilot, lambda: h.agent.conversation.messages, "the session to load")
        assert h.agent.recorder is not None and h.agent.recorder.session_id == named
        await wait_until(
            pilot, lambda: any("Resumed “Login flow”" in n for n in _notes(app)), "the note"
        )


async def test_export_writes_markdown_and_html_where_asked(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "An answer with </details> in it."}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, "/export")
        await wait_until(
            pilot, lambda: any("Nothing to export" in n for n in _notes(app)), "nothing"
        )
        await send(pilot, "a question")
        await wait_idle(pilot)
        await send(pilot, "/export")
        await wait_until(pilot, lambda: any("Exported" in n for n in _notes(app)), "the export")
        await send(pilot, "/export out/page.html")
        await wait_until(pilot, lambda: any("(html)" in n for n in _notes(app)), "the html")
        await send(pilot, "/export out/page.html")  # never over an existing file
        await wait_until(pilot, lambda: any("exists" in n for n in _notes(app)), "the refusal")
    assert h.agent.recorder is not None
    markdown = (h.workspace / f"{h.agent.recorder.session_id}.md").read_text()
    assert markdown.startswith("# a question\n") and "&lt;/details>" in markdown
    page = (h.workspace / "out" / "page.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "&lt;/details&gt;" in page


async def test_fork_goes_on_in_a_copy_and_leaves_the_original(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "first answer"}, {"text": "answer in the fork"}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, "/fork")
        await wait_until(pilot, lambda: any("Cannot fork" in n for n in _notes(app)), "no fork")
        await send(pilot, "the topic")
        await wait_idle(pilot)
        assert h.agent.recorder is not None
        original = h.agent.recorder.session_id
        path = h.agent.recorder.writer.path
        before = path.read_bytes()
        await send(pilot, "/fork")
        await wait_until(pilot, lambda: any("Forked" in n for n in _notes(app)), "the fork")
        forked = h.agent.recorder.session_id
        assert forked != original
        await send(pilot, "go on in the fork")
        await wait_idle(pilot)
    assert path.read_bytes() == before
    copy = h.agent.recorder.writer.path
    lines = [json.loads(line) for line in copy.read_text().splitlines()]
    assert lines[0]["forked_from"] == original
    assert [m["name"] for m in lines if m["type"] == "meta"] == ["the topic (fork)"]
    texts = [m.text for m in h.agent.conversation.messages]
    assert texts == ["the topic", "first answer", "go on in the fork", "answer in the fork"]


async def test_resume_fork_picks_a_session_and_goes_on_in_a_copy(make_agent: MakeAgent) -> None:
    named = await _named_session(make_agent, "picked topic", "Picked")
    original = SessionStore(state_dir(), make_agent([]).workspace).path_for(named)
    before = original.read_bytes()
    h = make_agent([{"text": "in the copy"}])
    start = attach_app(h.agent, cont=False, resume_id="", fork=True)
    assert start.pick and start.fork
    async with running_app(h.agent, session=start) as (app, pilot):
        await wait_screen(pilot, "SessionPickerScreen")
        await pilot.press("enter")
        await wait_until(pilot, lambda: h.agent.conversation.messages, "the copy to load")
        await wait_until(
            pilot, lambda: any("“Picked (fork)”" in n for n in _notes(app)), "the note"
        )
        await send(pilot, "go on")
        await wait_idle(pilot)
    assert h.agent.recorder is not None and h.agent.recorder.session_id != named
    assert original.read_bytes() == before
