"""Sessions in the app: draw a resumed transcript, the picker, the other-folder question (§2).

A resumed transcript shows the session as the conversation now stands
(``sessions/timeline.standing``: rewound turns gone, undone changes and interrupted
calls said so). Its last turn is drawn by feeding the saved events to the same ``TurnView`` a
live turn uses, so cards, diffs, denials and notices look as they did; earlier turns are one-line
rows drawn in full when opened (``widgets/replayed_turn.py``), so the first paint costs what is
on screen, not what is in the session. The conversation itself is parsed after that first frame,
in steps between keys (``sessions/history.py``); a turn waits for it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.errors import UsageError
from agent_tui.front.types import (
    Cleared,
    Entry,
    LoadedSession,
    SessionFileError,
    SessionInfo,
    SessionStart,
    TurnSpan,
    replay_events,
    standing,
)
from agent_tui.plural import plural
from agent_tui.text_safety import one_line
from agent_tui.ui.widgets.notes import Note, UserMessage

if TYPE_CHECKING:
    from textual.widget import Widget

    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.render import EntrySink, TurnView
    from agent_tui.ui.widgets.status_bar import StatusBar

ROWS_SHOWN = 6  # earlier turns mounted as rows; older ones behind "show earlier"
UNDONE = "The file changes of this turn were undone."
INTERRUPTED = "Interrupted: the app was closed during this turn."


async def draw(app: AgentApp, loaded: LoadedSession) -> None:
    """Draw ``loaded`` as it stands: its last turn in full, earlier ones as rows (the oldest
    behind the transcript's "click to show" bar). Then say what was resumed."""
    from agent_tui.ui.widgets.replayed_turn import ReplayedTurn, TurnRow

    turns = standing(loaded).turns
    transcript = app.transcript
    rows: list[Callable[[], Widget]] = [partial(TurnRow, loaded, span) for span in turns[:-1]]
    transcript.add_hidden(rows[:-ROWS_SHOWN])
    shown = [make() for make in rows[-ROWS_SHOWN:]]
    if turns:
        shown.append(await ReplayedTurn.made(loaded, turns[-1], app.status))
    title = one_line(loaded.label)[:100] or loaded.id
    count = plural(loaded.messages, "message")
    shown.append(Note(f"Resumed “{title}” ({count}); session {loaded.id}."))
    shown.extend(Note(notice, "warning") for notice in loaded.notices)  # roots left out
    await transcript.add_all(shown)  # one mount: one styling and layout pass
    app.refresh_todo()  # the session's last todo list
    app.status.show_spending(app.front.spending())  # every run's, not the last turn's replay
    # The conversation is parsed once this screen is painted, in steps between keys.
    app.call_after_refresh(
        lambda: app.run_worker(app.front.sessions.history_ready(), group="history")
    )


class Collected:
    """An ``EntrySink`` that keeps a turn's widgets to mount them at once: one styling and
    layout pass instead of one per card, and none at all before the turn itself is mounted
    (``ReplayedTurn.made``). Every entry of a saved turn is a widget complete before it is
    mounted: sub-agent runs, drawn into their mounted card, are not saved (sessions/writer.py)."""

    def __init__(self, target: Widget | None) -> None:
        self.target = target
        self.widgets: list[Widget] = []

    async def add(self, widget: Widget) -> Widget:
        self.widgets.append(widget)
        return widget

    async def flush(self) -> None:
        """Mount the widgets kept into ``target`` (when there is one)."""
        widgets, self.widgets = self.widgets, []
        if widgets and self.target is not None:
            await self.target.mount_all(widgets)


async def draw_span(
    sink: EntrySink,
    status: StatusBar | None,
    loaded: LoadedSession,
    span: TurnSpan,
    start: int,
    end: int,
    *,
    in_turn: bool = False,
    last: bool = True,
) -> None:
    """Draw entries ``start:end`` of the turn ``span`` (all of it, or a part of a long one);
    ``last``: the part that ends the turn, which says how the turn ended."""
    views = await draw_entries(sink, status, loaded.drawable(start, end), in_turn, span.prompt)
    for view in views:
        for card in view.cards.values():
            if span.interrupted and card.state.status in ("running", "waiting"):
                card.set_interrupted()
            if span.undone and card.state.kind == "edit" and card.state.status == "done":
                card.set_undone()
    if status is not None and span.interrupted:
        status.waiting_tokens = 0  # no request is waited for: the app that sent it is gone
    if last and span.undone:
        await sink.add(Note(UNDONE, "warning"))
    if last and span.interrupted:
        await sink.add(Note(INTERRUPTED, "warning"))


async def draw_entries(
    sink: EntrySink,
    status: StatusBar | None,
    entries: list[Entry],
    in_turn: bool = False,
    prompt: str = "",
) -> list[TurnView]:
    """Feed a session's entries to ``TurnView``, as the live turns were drawn; returns the
    views (their cards)."""
    from agent_tui.ui.render import TurnView

    views: list[TurnView] = []
    view: TurnView | None = None
    text, thinking = "", ""  # an answer's blocks, drawn as one when the next thing comes
    for item in replay_events(entries, in_turn):
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
            view = None
        elif isinstance(item, ev.TurnStarted):
            if view is not None:
                await view.end_answer()
            await sink.add(UserMessage(item.text))
            view = TurnView(sink, status, item.text)
            views.append(view)
        else:
            if view is None:
                view = TurnView(sink, status, prompt)
                views.append(view)
            await view.handle(item)
    if view is not None:
        await view.whole_answer(text, thinking)
    return views


async def start(app: AgentApp, begin: SessionStart) -> None:
    """On mount: draw a session the CLI resumed; note what there is to say."""
    if begin.note:
        await app.transcript.add(Note(begin.note, "warning"))
    if begin.loaded is not None:
        await draw(app, begin.loaded)


async def ask_first(app: AgentApp, begin: SessionStart) -> None:
    """In a worker after mount: the picker (``--resume``) or the other-folder question."""
    if begin.pick:
        await pick(app, fork=begin.fork)
    elif begin.other is not None:
        await resume_other(app, begin.other)


async def pick(app: AgentApp, *, fork: bool = False) -> None:
    """``/resume``: pick one of this workspace's sessions and resume it (``fork``: go on in a
    copy of it, ``--resume --fork``)."""
    from agent_tui.ui.screens.session_picker import SessionPickerScreen

    listed = app.front.sessions.others()
    if not listed:
        await app.transcript.add(Note("No other saved session in this folder."))
        return
    chosen = await app.push_screen_wait(SessionPickerScreen(listed))
    info = next((i for i in listed if i.id == chosen), None)
    if info is not None:
        await switch_to(app, info, fork=fork)


async def resume_other(app: AgentApp, info: SessionInfo) -> None:
    from agent_tui.ui.screens.session_picker import OtherWorkspaceScreen

    if await app.push_screen_wait(OtherWorkspaceScreen(info)):
        await switch_to(app, info)
    else:
        await app.transcript.add(Note("Started a new session instead."))


async def switch_to(app: AgentApp, info: SessionInfo, *, fork: bool = False) -> None:
    """Resume ``info`` in place of the current conversation.

    This session's "session" grants end with it: the resumed one starts without any.
    """
    try:
        loaded = app.front.sessions.switch_to(info, fork=fork)
    except (OSError, SessionFileError) as exc:
        await app.transcript.add(Note(f"Cannot resume {info.id}: {exc}", "error"))
        return
    await app.transcript.clear()
    await draw(app, loaded)


async def fork(app: AgentApp) -> None:
    """``/fork``: go on in a copy of this session; the transcript stays (it is the same)."""
    before = app.front.sessions.current_id
    try:
        loaded = app.front.sessions.fork()
    except (OSError, SessionFileError, UsageError) as exc:
        await app.transcript.add(Note(f"Cannot fork: {one_line(str(exc))}", "error"))
        return
    name = one_line(loaded.label)[:100]
    await app.transcript.add(
        Note(
            f"Forked: now in session {loaded.id} “{name}”; "
            f"the original stays as {before} (agent-tui --resume {before})."
        )
    )
