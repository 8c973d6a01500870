"""Sessions in the app: draw a resumed transcript, the picker, the other-folder question (§2).

A resumed transcript is drawn by feeding the saved events to the same ``TurnView`` a live turn
uses, so cards, diffs, denials and notices look as they did. The last ``DRAWN_TURNS`` turns are
drawn at once; earlier ones only when shown (first paint stays fast for a long session).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.front.types import (
    Cleared,
    Entry,
    LoadedSession,
    SessionFileError,
    SessionInfo,
    SessionStart,
    replay_events,
)
from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui.widgets.notes import Note, UserMessage

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.render import EntrySink
    from agent_tui.ui.widgets.status_bar import StatusBar

DRAWN_TURNS = 6  # drawn before the first paint; earlier ones when the user asks


async def draw(app: AgentApp, loaded: LoadedSession) -> None:
    """Draw ``loaded``'s last DRAWN_TURNS turns; earlier ones wait behind the transcript's
    "click to show" bar, drawn when shown. Then say what was resumed."""
    from agent_tui.ui.widgets.replayed_turn import ReplayedTurn

    turns = loaded.turn_slices()
    earlier, shown = turns[:-DRAWN_TURNS], turns[-DRAWN_TURNS:]
    transcript = app.transcript
    transcript.add_hidden([partial(ReplayedTurn, loaded, start, end) for start, end in earlier])
    if shown:
        await draw_entries(transcript, app.status, loaded.drawable(shown[0][0]))
    title = one_line(str(loaded.header.get("title", ""))) or loaded.id
    count = plural(len(loaded.conversation.messages), "message")
    await transcript.add(Note(f"Resumed “{title}” ({count}); session {loaded.id}."))


async def draw_entries(sink: EntrySink, status: StatusBar | None, entries: list[Entry]) -> None:
    """Feed a session's entries to ``TurnView``, as the live turns were drawn."""
    from agent_tui.ui.render import TurnView

    view: TurnView | None = None
    text, thinking = "", ""  # an answer's blocks, drawn as one when the next thing comes
    for item in replay_events(entries):
        if isinstance(item, ev.TextDelta | ev.ThinkingDelta):
            if isinstance(item, ev.TextDelta):
                text += item.text
            else:
                thinking += item.text
            continue
        if view is not None and (text or thinking):
            await view.whole_answer(text, thinking)
        text, thinking = "", ""
        if isinstance(item, Cleared):
            view = None  # only in the drawn tail after the last clear: nothing before it shows
        elif isinstance(item, ev.TurnStarted):
            if view is not None:
                await view.end_answer()
            await sink.add(UserMessage(item.text))
            view = TurnView(sink, status, item.text)
        else:
            if view is None:
                view = TurnView(sink, status, "")
            await view.handle(item)
    if view is not None:
        await view.whole_answer(text, thinking)


async def start(app: AgentApp, begin: SessionStart) -> None:
    """On mount: draw a session the CLI resumed; note what there is to say."""
    if begin.note:
        await app.transcript.add(Note(begin.note, "warning"))
    if begin.loaded is not None:
        await draw(app, begin.loaded)


async def ask_first(app: AgentApp, begin: SessionStart) -> None:
    """In a worker after mount: the picker (``--resume``) or the other-folder question."""
    if begin.pick:
        await pick(app)
    elif begin.other is not None:
        await resume_other(app, begin.other)


async def pick(app: AgentApp) -> None:
    """``/resume``: pick one of this workspace's sessions and resume it."""
    from agent_tui.ui.screens.session_picker import SessionPickerScreen

    listed = app.front.sessions.others()
    if not listed:
        await app.transcript.add(Note("No other saved session in this folder."))
        return
    chosen = await app.push_screen_wait(SessionPickerScreen(listed))
    info = next((i for i in listed if i.id == chosen), None)
    if info is not None:
        await switch_to(app, info)


async def resume_other(app: AgentApp, info: SessionInfo) -> None:
    from agent_tui.ui.screens.session_picker import OtherWorkspaceScreen

    if await app.push_screen_wait(OtherWorkspaceScreen(info)):
        await switch_to(app, info)
    else:
        await app.transcript.add(Note("Started a new session instead."))


async def switch_to(app: AgentApp, info: SessionInfo) -> None:
    """Resume ``info`` in place of the current conversation.

    This session's "session" grants end with it: the resumed one starts without any.
    """
    try:
        loaded = app.front.sessions.switch_to(info)
    except (OSError, SessionFileError) as exc:
        await app.transcript.add(Note(f"Cannot resume {info.id}: {exc}", "error"))
        return
    await app.transcript.clear()
    await draw(app, loaded)
