"""/undo and /rewind in the app: ask before overwriting hand edits, pick a prompt,
redraw the transcript to match a rewound conversation and put the prompt back in the input.

The transcript keeps no link from its entries to conversation messages, so the flow notes how many
entries the transcript held when each prompt was sent (``marks``) and cuts back to that count. A
conversation the app did not draw itself (after /undo-clear, or loaded) is redrawn from its
messages instead.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.widget import Widget

from agent_tui import events as ev
from agent_tui.front.types import TurnRecord, UndoPlan, UndoReport, turns_named, typed_text
from agent_tui.ui.widgets.notes import MarkdownNote, Note, UserMessage

if TYPE_CHECKING:
    from agent_tui.ui.app import AgentApp


class RewindFlow:
    """Carries out the ``undo`` and ``rewind`` command actions for ``app``."""

    def __init__(self, app: AgentApp) -> None:
        self.app = app
        self.marks: dict[int, int] = {}  # prompt's message index -> transcript entries before it
        self._marks_run = ""
        self._pending: int | None = None

    # ---- transcript marks (called by the app around each turn) ---------------------------

    def _entry_count(self) -> int:
        transcript = self.app.transcript
        return len(transcript.hidden) + len(transcript.entries)

    def before_prompt(self) -> None:
        """The user's message is about to be added to the transcript."""
        self._pending = self._entry_count()

    def turn_kept(self, index: int | None) -> None:
        """The turn whose prompt is message ``index`` stayed in the conversation."""
        run = self._run_id()
        if run != self._marks_run:  # /clear started a new conversation: old marks are void
            self.marks, self._marks_run = {}, run
        if index is not None and self._pending is not None:
            self.marks[index] = self._pending
        self._pending = None

    def _run_id(self) -> str:
        return self.app.front.changes.run_id

    # ---- /undo ---------------------------------------------------------------------------

    async def undo(self, force: bool) -> None:
        app = self.app
        records = app.front.changes.undo_targets()
        if not records:
            await app.transcript.add(Note("Nothing to undo: no turn left file changes to undo."))
            return
        report = await self._restore(records, force)
        if report is not None:
            turns = turns_named(records)
            app.front.publish(ev.CheckpointRestored(report.files, None, turns))

    async def _restore(
        self, records: list[TurnRecord], force: bool, *, show: bool = True
    ) -> UndoReport | None:
        """Undo ``records`` (newest first), asking about hand edits; None when cancelled."""
        from agent_tui.ui.screens.undo_conflicts import UndoConflictsScreen

        app = self.app
        changes = app.front.changes
        plan: UndoPlan = changes.plan(records)
        overwrite = force
        if plan.conflicts and not force:
            answer = await app.push_screen_wait(UndoConflictsScreen(plan.conflicts))
            if answer is None:
                await app.transcript.add(Note("Undo cancelled: no file was changed."))
                return None
            overwrite = answer == "overwrite"
        report = changes.apply(plan, overwrite=overwrite)
        if show:
            await app.transcript.add(MarkdownNote(changes.describe(report, records)))
        return report

    # ---- /rewind -------------------------------------------------------------------------

    async def rewind(self) -> None:
        from agent_tui.ui.screens.rewind import PromptChoice, RewindScreen

        app = self.app
        front = app.front
        found = front.changes.prompts()
        if not found:
            await app.transcript.add(Note("Nothing to rewind: this conversation has no prompt."))
            return
        choices = [PromptChoice(index, text, self._files_from(index)) for index, text in found]
        picked = await app.push_screen_wait(RewindScreen(choices))
        if picked is None:
            return
        index, choice = picked
        text = dict(found)[index]
        files: tuple[str, ...] = ()
        undone: tuple[int, ...] = ()
        said = "No file was changed from that prompt on."
        if choice in ("code", "both"):
            records = front.changes.rewind_targets(index)
            if records:
                report = await self._restore(records, False, show=False)
                if report is None:
                    return  # cancelled: the conversation stays too
                files, said = report.files, front.changes.describe(report, records)
                undone = turns_named(records)
        to: int | None = None
        if choice in ("conversation", "both"):
            to = index
            front.rewind(index)
            app.refresh_todo()  # the todo list as it stood at that prompt
            await self._redraw(index)
            app.prompt_input.load_text(text)
            app.prompt_input.focus()
        if choice in ("code", "both"):
            await app.transcript.add(MarkdownNote(said))  # after the redraw, which cuts notes
        front.publish(ev.CheckpointRestored(files, to, undone))

    def _files_from(self, index: int) -> int:
        paths = {p for r in self.app.front.changes.rewind_targets(index) for p in r.files}
        return len(paths)

    async def _redraw(self, index: int) -> None:
        transcript = self.app.transcript
        mark = self.marks.get(index) if self._run_id() == self._marks_run else None
        if mark is not None and mark <= self._entry_count():
            await transcript.restore(transcript.records()[:mark])
        else:
            await transcript.restore(self._drawn_from_conversation())
        for later in [i for i in self.marks if i >= index]:
            del self.marks[later]
        note = "Rewound the conversation to before this prompt; edit it and press Enter to send."
        await transcript.add(Note(note))

    def _drawn_from_conversation(self) -> list[Callable[[], Widget]]:
        """Records of the conversation's prompts and answers (the app did not draw it itself)."""
        # Imported here: Markdown (markdown_it, the highlighter) is not needed for the first paint.
        from agent_tui.ui.widgets.assistant import AssistantMessage

        records: list[Callable[[], Widget]] = []
        for message in self.app.front.messages:
            text = typed_text(message) if message.role == "user" else message.text
            if not text.strip():
                continue
            if message.role == "user":
                records.append(partial(UserMessage, text))
            else:
                records.append(partial(AssistantMessage, text, frozen=True))
        return records
