"""Resuming sessions in the app (issue 12 §2): ``--continue`` draws the old transcript through the
live turn's drawing code, ``/resume`` picks from a searchable list, another folder's session is
asked about, and "session" grants are not brought back."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from agent_tui.agent.resume import attach_app
from agent_tui.paths import state_dir
from agent_tui.sessions import SessionStore, load
from agent_tui.ui.app import resume_hint
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.app_helpers import running_app, send_clear, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


def _note_call(call_id: str, content: str) -> dict[str, object]:
    return {
        "id": call_id,
        "name": "write_note",
        "input": {"path": "note.txt", "content": content},
    }


async def _run_session(make_agent: MakeAgent, prompt: str, answer: str) -> str:
    """One app run of one turn (a plain answer); returns the session's id."""
    h = make_agent([{"text": answer}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, prompt)
        await wait_idle(pilot)
    assert h.agent.recorder is not None
    return h.agent.recorder.session_id


async def test_continue_draws_the_old_transcript_and_no_session_grant_comes_back(
    make_agent: MakeAgent,
) -> None:
    first = make_agent([{"tool_calls": [_note_call("c1", "first-line")]}, {"text": "Wrote it."}])
    start = attach_app(first.agent, cont=False, resume_id=None)
    async with running_app(first.agent, session=start) as (app, pilot):
        await send_to_approval(pilot, "write the note")
        await pilot.press("s")  # allow write_note for this session
        await wait_idle(pilot)
    said = list(first.agent.conversation.messages)

    second = make_agent([{"tool_calls": [_note_call("c2", "second-line")]}, {"text": "Again."}])
    start = attach_app(second.agent, cont=True, resume_id=None)
    assert start.loaded is not None
    async with running_app(second.agent, session=start, size=(100, 40)) as (app, pilot):
        await pilot.pause()
        assert [m.to_dict() for m in second.agent.conversation.messages] == [
            m.to_dict() for m in said
        ]
        assert [u.text for u in app.query(UserMessage)] == ["write the note"]
        [card] = list(app.query(ToolCard))
        assert card.state.status == "done" and "+first-line" in card.state.diff  # the diff
        assert card.state.input == {"path": "note.txt", "content": "first-line"}
        assert "session" in card.state.decided  # the provenance: "you, for this session"
        answers = [a for a in app.query(AssistantMessage) if "Wrote it." in a.text]
        assert answers
        assert any("Resumed" in str(n.render()) for n in app.query(Note))
        await send(pilot, "write it again")
        # The first run's "session" grant ended with it: this call is asked about.
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("y")
        await wait_idle(pilot)
    assert second.agent.recorder is not None
    assert second.agent.recorder.session_id == first.agent.recorder.session_id  # type: ignore[union-attr]


async def test_resume_command_picks_a_session_by_search(make_agent: MakeAgent) -> None:
    alpha = await _run_session(make_agent, "alpha topic", "about alpha")
    await _run_session(make_agent, "beta topic", "about beta")
    h = make_agent([{"text": "back on alpha"}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, "/resume")
        await wait_screen(pilot, "SessionPickerScreen")
        options = app.screen.query_one(OptionList)
        assert options.option_count == 2
        assert "message" in str(options.get_option_at_index(0).prompt)
        app.screen.query_one(Input).value = "alpha"
        await wait_until(pilot, lambda: options.option_count == 1, "the search to filter")
        await pilot.press("enter")
        await wait_until(pilot, lambda: h.agent.conversation.messages, "the session to load")
        await wait_until(pilot, lambda: list(app.query(UserMessage)), "the transcript")
        assert [u.text for u in app.query(UserMessage)] == ["alpha topic"]
        assert h.agent.recorder is not None and h.agent.recorder.session_id == alpha
        await send(pilot, "continue alpha")
        await wait_idle(pilot)
    texts = [m.text for m in h.agent.conversation.messages]
    assert texts == ["alpha topic", "about alpha", "continue alpha", "back on alpha"]


async def test_resume_from_another_folder_asks_first(make_agent: MakeAgent, tmp_path: Path) -> None:
    from agent_tui.sessions.store import SessionStore

    saved = await _run_session(make_agent, "from here", "ok")
    # Move the saved file under another workspace's key, as if it had been saved there.
    store = SessionStore(tmp_path / "state", tmp_path / "ws")
    other = SessionStore(tmp_path / "state", tmp_path)
    other.folder.mkdir(parents=True)
    text = store.path_for(saved).read_text()
    store.path_for(saved).unlink()
    other.path_for(saved).write_text(
        text.replace(str((tmp_path / "ws").resolve()), str(tmp_path.resolve()), 1)
    )
    for answer, resumed in (("n", False), ("y", True)):
        h = make_agent([])
        start = attach_app(h.agent, cont=False, resume_id=saved)
        assert start.other is not None and start.loaded is None
        async with running_app(h.agent, session=start) as (app, pilot):
            await wait_screen(pilot, "OtherWorkspaceScreen")
            await pilot.press(answer)
            await pilot.pause()
            await pilot.pause()
            assert bool(h.agent.conversation.messages) is resumed


def _record_turns(workspace: Path, turns: int) -> None:
    """A saved session of ``turns`` turns (a read call and an answer each), as the agent writes it."""
    from agent_tui import events as ev
    from agent_tui.conversation import (
        Conversation,
        Message,
        TextBlock,
        ToolResultBlock,
        ToolUseBlock,
        user_text,
    )
    from agent_tui.paths import state_dir
    from agent_tui.providers.base import Usage
    from agent_tui.sessions import SessionRecorder, SessionStore
    from agent_tui.tools.base import Prepared, ToolResult

    recorder = SessionRecorder(SessionStore(state_dir(), workspace).create("m"))
    conv = Conversation()
    for n in range(turns):
        recorder.record(ev.TurnStarted(f"question {n}"), conv)
        conv.append_user(user_text(f"question {n}"))
        call = ToolUseBlock(f"c{n}", "look_around", {})
        conv.append(Message("assistant", [TextBlock(f"looking {n}"), call]))
        recorder.record(
            ev.ToolCallStarted(call.id, call.name, {}, Prepared("Looking", "Looked"), "read"), conv
        )
        recorder.record(ev.ToolCallDecided(call.id, True, "read-only", "read-only tool"), conv)
        recorder.record(
            ev.ToolCallFinished(call.id, call.name, ToolResult(f"seen {n}"), "Looked"), conv
        )
        conv.append_user(Message("user", [ToolResultBlock(call.id, f"seen {n}")]))
        conv.append(Message("assistant", [TextBlock(f"answer {n}")]))
        recorder.record(ev.TurnFinished(f"answer {n}", "end_turn", 2, Usage()), conv)
    recorder.close()


async def test_a_long_session_draws_its_last_turn_and_earlier_ones_as_rows_opened_on_demand(
    make_agent: MakeAgent,
) -> None:
    from agent_tui.ui.resume_flow import ROWS_SHOWN
    from agent_tui.ui.widgets.replayed_turn import TurnRow
    from agent_tui.ui.widgets.transcript import Transcript

    h = make_agent([])
    turns = ROWS_SHOWN + 4
    _record_turns(h.workspace, turns)
    start = attach_app(h.agent, cont=True, resume_id=None)
    assert start.loaded is not None and len(h.agent.conversation.messages) == 4 * turns
    async with running_app(h.agent, session=start, size=(100, 40)) as (app, pilot):
        await pilot.pause()
        assert [u.text for u in app.query(UserMessage)] == [f"question {turns - 1}"]
        assert len(app.query(ToolCard)) == 1
        rows = list(app.query(TurnRow))
        assert [str(r.render()) for r in rows] == [
            f"▸ question {n} · 1 call · answer {n}"
            for n in range(turns - 1 - ROWS_SHOWN, turns - 1)
        ]
        transcript = app.query_one(Transcript)
        assert len(transcript.hidden) == turns - 1 - ROWS_SHOWN
        rows[-1].focus()
        await pilot.press("enter")  # the row becomes the turn, drawn as it was
        wanted = [f"question {turns - 2}", f"question {turns - 1}"]
        await wait_until(pilot, lambda: [u.text for u in app.query(UserMessage)] == wanted, "it")
        cards = list(app.query(ToolCard))
        assert len(cards) == 2 and all(c.state.status == "done" for c in cards)
        assert f"answer {turns - 2}" in [a.text for a in app.query(AssistantMessage)]
        await transcript.show_earlier()
        await wait_until(pilot, lambda: not transcript.hidden, "earlier rows")
        assert len(app.query(TurnRow)) == turns - 2


async def test_ctrl_o_opens_the_newest_row_while_typing_stays_in_the_prompt(
    make_agent: MakeAgent,
) -> None:
    """Rows take Enter only when focused, and typing always lands in the prompt: a keyboard user
    opens them with Ctrl+O, newest first, and the prompt keeps the focus (and what was typed)."""
    from agent_tui.ui.widgets.replayed_turn import TurnRow

    h = make_agent([])
    _record_turns(h.workspace, 3)
    start = attach_app(h.agent, cont=True, resume_id=None)
    async with running_app(h.agent, session=start, size=(100, 40)) as (app, pilot):
        await pilot.pause()
        assert len(app.query(TurnRow)) == 2
        await pilot.press(*"half typed", "ctrl+o")
        wanted = ["question 1", "question 2"]
        await wait_until(pilot, lambda: [u.text for u in app.query(UserMessage)] == wanted, "it")
        await pilot.press("ctrl+o")
        wanted = ["question 0", *wanted]
        await wait_until(pilot, lambda: [u.text for u in app.query(UserMessage)] == wanted, "all")
        assert not app.query(TurnRow)
        assert app.focused is app.prompt_input
        assert app.prompt_input.text == "half typed"


async def test_a_denied_call_and_a_notice_are_drawn_again_on_resume(make_agent: MakeAgent) -> None:
    first = make_agent(
        [
            {"tool_calls": [_note_call("c1", "never-written")]},
            {"text": ""},  # an empty answer: the agent says so in a notice
        ]
    )
    start = attach_app(first.agent, cont=False, resume_id=None)
    async with running_app(first.agent, session=start) as (app, pilot):
        await send_to_approval(pilot, "write it", "n")
        await pilot.press("enter")  # no reason
        await wait_idle(pilot)
        live = [str(n.render()) for n in app.query(Note)]
    assert any("empty answer" in text for text in live)

    second = make_agent([])
    start = attach_app(second.agent, cont=True, resume_id=None)
    async with running_app(second.agent, session=start) as (app, pilot):
        await pilot.pause()
        [card] = list(app.query(ToolCard))
        assert card.state.status == "denied"
        assert card.state.message.startswith("Not run")
        notes = [str(n.render()) for n in app.query(Note)]
        assert any("empty answer" in text for text in notes)


async def test_resume_without_an_id_opens_the_picker_at_start(make_agent: MakeAgent) -> None:
    saved = await _run_session(make_agent, "the only topic", "noted")
    h = make_agent([])
    start = attach_app(h.agent, cont=False, resume_id="")
    assert start.pick
    async with running_app(h.agent, session=start) as (app, pilot):
        await wait_screen(pilot, "SessionPickerScreen")
        await pilot.press("enter")
        await wait_until(pilot, lambda: h.agent.conversation.messages, "the session to load")
        assert h.agent.recorder is not None and h.agent.recorder.session_id == saved


async def test_a_title_is_shown_as_typed_never_as_markup_or_control_codes(
    make_agent: MakeAgent,
) -> None:
    title = "[bold red]loud[/] \x1b[2Jwiped [link=http://x]y[/link]"
    await _run_session(make_agent, title, "ok")
    h = make_agent([])
    start = attach_app(h.agent, cont=False, resume_id="")
    async with running_app(h.agent, session=start, size=(120, 32)) as (app, pilot):
        await wait_screen(pilot, "SessionPickerScreen")
        label = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "[bold red]loud[/]" in label and "[link=http://x]" in label
        assert "\x1b" not in label and "␛[2J" in label


async def test_clear_starts_a_new_session_and_the_old_one_stays_resumable(
    make_agent: MakeAgent,
) -> None:
    """Issue 23 §6: /clear kept the same file (a rewind to 0 in it), so after a restart the old
    conversation was gone. Now it stays a session of its own, named in the clear's note."""
    h = make_agent([{"text": "before"}, {"text": "after"}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, "old topic")
        await wait_idle(pilot)
        assert h.agent.recorder is not None
        old = h.agent.recorder.session_id
        old_file = h.agent.recorder.writer.path.read_text()
        await send_clear(pilot, "y")
        assert h.agent.recorder.session_id != old
        assert any(f"agent-tui --resume {old}" in str(n.render()) for n in app.query(Note))
        # Quitting now (the new session has no file yet) would name the cleared one.
        assert resume_hint(app) == f"To continue this session: agent-tui --resume {old}"
        await send(pilot, "new topic")
        await wait_idle(pilot)
        new = h.agent.recorder.session_id
        assert resume_hint(app) == f"To continue this session: agent-tui --resume {new}"
    store = SessionStore(state_dir(), h.workspace)
    old_info, new_info = store.get(old), store.get(new)
    assert old_info is not None and new_info is not None
    assert old_info.path.read_text().startswith(old_file)  # only the clear's events follow
    assert '"rewind"' not in old_info.path.read_text()
    assert [m.text for m in load(old_info.path).conversation.messages] == ["old topic", "before"]
    again = make_agent([])
    start = attach_app(again.agent, cont=False, resume_id=old)
    async with running_app(again.agent, session=start) as (app, pilot):
        await pilot.pause()
        assert [m.text for m in again.agent.conversation.messages] == ["old topic", "before"]
        assert [u.text for u in app.query(UserMessage)] == ["old topic"]
    latest = make_agent([])
    start = attach_app(latest.agent, cont=True, resume_id=None)
    assert [m.text for m in latest.agent.conversation.messages] == ["new topic", "after"]


async def test_undo_clear_brings_back_the_old_session_and_appends_to_its_file(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "before"}, {"text": "after"}, {"text": "back again"}])
    start = attach_app(h.agent, cont=False, resume_id=None)
    async with running_app(h.agent, session=start) as (app, pilot):
        await send(pilot, "old topic")
        await wait_idle(pilot)
        assert h.agent.recorder is not None
        old = h.agent.recorder.session_id
        await send_clear(pilot, "y")
        await send(pilot, "new topic")
        await wait_idle(pilot)
        new = h.agent.recorder.session_id
        await send(pilot, "/undo-clear")
        await wait_idle(pilot)
        assert h.agent.recorder.session_id == old
        assert [u.text for u in app.query(UserMessage)][:1] == ["old topic"]
        await send(pilot, "more on the old topic")
        await wait_idle(pilot)
    store = SessionStore(state_dir(), h.workspace)
    old_path, new_path = store.path_for(old), store.path_for(new)
    texts = [m.text for m in load(old_path).conversation.messages]
    assert texts == ["old topic", "before", "more on the old topic", "back again"]
    assert [m.text for m in load(new_path).conversation.messages] == ["new topic", "after"]


@pytest.mark.parametrize(("turns", "calls"), [(2500, 1), (1, 1000), (40, 25)])
async def test_resuming_a_session_of_any_size_mounts_a_screenful_of_widgets(
    make_agent: MakeAgent, turns: int, calls: int
) -> None:
    """10,000 messages, a turn of 1,000 calls, 40 turns of 25: the transcript costs what is on
    screen (before: every call of the last 6 turns was a mounted card, 1,000 in one turn)."""
    from agent_tui.paths import state_dir
    from tests.sessions.shapes import record_shape

    h = make_agent([])
    record_shape(state_dir(), h.workspace.resolve(), turns, calls)
    start = attach_app(h.agent, cont=True, resume_id=None)
    assert start.loaded is not None
    assert len(h.agent.conversation.messages) == turns * (2 + 2 * calls)
    async with running_app(h.agent, session=start) as (app, pilot):
        await pilot.pause()
        assert len(list(app.query("*"))) < 120
        assert len(app.query(ToolCard)) <= 5
