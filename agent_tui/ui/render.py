"""Turn the agent's events into transcript entries (one ``TurnView`` per turn).

Questions (``ApprovalRequested``, ``RoundLimitHit``) are answered by the app; this class only draws.
"""

from __future__ import annotations

from typing import Protocol, TypeAlias

from textual.widget import Widget

from agent_tui import events as ev
from agent_tui.front.types import CONTINUE_PROMPT, compacting_text, progress_message
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.compaction_card import CompactionCard
from agent_tui.ui.widgets.continue_note import ContinueNote
from agent_tui.ui.widgets.notes import ErrorNote, Note
from agent_tui.ui.widgets.status_bar import StatusBar
from agent_tui.ui.widgets.subagent_card import SubagentCard
from agent_tui.ui.widgets.tool_card import CardState, ToolCard
from agent_tui.ui.widgets.web_search_card import WebSearchCard

# Events about a call whose card is already drawn (matched by ``call_id``).
ToolCallUpdate: TypeAlias = (
    ev.ApprovalRequested
    | ev.ToolCallDecided
    | ev.ToolOutputDelta
    | ev.ToolProgress
    | ev.ToolCallFinished
)


class EntrySink(Protocol):
    """Where a turn's entries go: the transcript, or a resumed session's earlier turn."""

    async def add(self, widget: Widget) -> Widget: ...


class TurnView:
    """Draws one turn. ``prompt`` is what the user sent (for the Retry button of an error)."""

    def __init__(self, transcript: EntrySink, status: StatusBar | None, prompt: str) -> None:
        self.transcript = transcript
        self.status = status
        self.prompt = prompt
        self.cards: dict[str, ToolCard] = {}
        self.streaming: dict[str, ToolCard] = {}  # pending cards of calls still streaming in
        self.answer: AssistantMessage | None = None
        self.finished: ev.TurnFinished | None = None
        self.pruned = ""  # what the last pruning note said was left out
        self.local = False  # a command answered without a model turn (/compact): nothing to undo
        # run_agent call id -> the sub-run's card and view (drawn nested, see _subagent)
        self.subagents: dict[str, tuple[SubagentCard, TurnView]] = {}

    async def _answer(self) -> AssistantMessage:
        if self.answer is None:
            self.answer = AssistantMessage()
            await self.transcript.add(self.answer)
        return self.answer

    async def end_answer(self) -> None:
        """Close the streaming answer: a tool call or the turn's end starts a new block."""
        if self.answer is not None:
            answer, self.answer = self.answer, None
            await answer.finish()
            if answer.is_empty:
                await answer.remove()

    async def whole_answer(self, text: str, thinking: str = "") -> None:
        """An answer already complete (a resumed session's): drawn finished at once, as the
        streamed one ends up, without streaming it again."""
        await self.end_answer()
        if text or thinking:
            await self.transcript.add(AssistantMessage(text, thinking, frozen=True))

    async def _subagent(self, event: ev.SubagentEvent) -> None:
        """Draw a sub-agent's event into its card under the run_agent call's card."""
        nested = self.subagents.get(event.call_id)
        if nested is None:
            await self.end_answer()
            card = SubagentCard(event.agent)
            await self.transcript.add(card)
            nested = self.subagents[event.call_id] = (card, TurnView(card, None, ""))
        card, view = nested
        await view.handle(event.inner)
        if isinstance(event.inner, ev.TurnFinished):
            await view.end_answer()
            card.finish(event.inner.cancelled or event.inner.stop_reason == "error")

    async def handle(self, event: ev.Event) -> None:
        """Draw one event (every type the agent emits; unknown ones are ignored).

        Text deltas come first: they are most of a turn's events while an answer streams.
        """
        status = self.status
        if status is not None and (status.compacting or isinstance(event, ev.CompactionStarted)):
            # A compaction's summary request yields nothing until it is done: the next event
            # (its usage, a notice, an error) ends the "compacting…" state.
            begun = isinstance(event, ev.CompactionStarted)
            status.compacting = compacting_text(event) if begun else ""  # type: ignore[arg-type]
        match event:
            case ev.TextDelta():
                await (await self._answer()).append_text(event.text)
            case ev.ThinkingDelta():
                await (await self._answer()).append_thinking(event.text)
            case ev.SubagentEvent():
                await self._subagent(event)
            case ev.ToolCallStreaming():
                await self._streaming(event)
            case ev.ToolCallStarted():
                await self._started(event)
            case (
                ev.ApprovalRequested()
                | ev.ToolCallDecided()
                | ev.ToolOutputDelta()
                | ev.ToolProgress()
                | ev.ToolCallFinished()
            ):
                self._update_card(event)
            case ev.RequestSent() | ev.ResponseStarted() | ev.UsageUpdated():
                self._update_status(event)
            case ev.TurnStarted() if event.references:
                # The chips: what was attached, in the form that says what it is (an @path as #file:).
                await self.transcript.add(Note(f"attached {', '.join(event.references)}"))
            case ev.Notice():
                await self._notice(event)
            case ev.ContextPruned():
                await self._pruned(event)
            case ev.ConversationCompacted():
                await self.end_answer()
                await self.transcript.add(CompactionCard(event))
            case ev.WebSearched() | ev.AnswerCited():
                await self.end_answer()
                await self.transcript.add(WebSearchCard(event))
            case ev.ErrorEvent():
                await self._error(event)
            case ev.TurnFinished():
                await self._finished(event)

    async def _started(self, event: ev.ToolCallStarted) -> None:
        """A call ready to run: its pending card (if its arguments streamed) or a new one."""
        await self.end_answer()
        message = event.prepared.invocation_message if event.prepared else event.name
        if pending := self.streaming.pop(event.call_id, None):
            pending.set_started(event.kind, event.input, message)
            self.cards[event.call_id] = pending
            return
        note = "parsed from text" if event.origin == "text" else ""
        card = ToolCard(
            CardState(event.call_id, event.name, event.kind, event.input, message, note=note)
        )
        self.cards[event.call_id] = card
        await self.transcript.add(card)

    def _update_card(self, event: ToolCallUpdate) -> None:
        """An event about a call already drawn: its card changes state (none: ignored)."""
        card = self.cards.get(event.call_id)
        if card is None:
            return
        match event:
            case ev.ApprovalRequested():
                confirmation = event.prepared.confirmation
                card.set_waiting(confirmation.message if confirmation else "")
            case ev.ToolCallDecided():
                card.set_decided(event.allowed, event.reason)
            case ev.ToolOutputDelta():
                card.append_output(event.text)
            case ev.ToolProgress():
                card.set_progress(event.progress, event.total, event.message)
            case ev.ToolCallFinished():
                result = event.result
                code = result.data.get("exit_code")
                problems = result.data.get("new_problems")  # an edit's, from its language server
                card.set_finished(
                    result.content,
                    result.is_error,
                    result.display,
                    event.past_tense_message,
                    event.duration_s,
                    exit_code=code if isinstance(code, int) else None,
                    new_problems=problems if isinstance(problems, int) else 0,
                )

    def _update_status(self, event: ev.RequestSent | ev.ResponseStarted | ev.UsageUpdated) -> None:
        """The status bar's waiting line and token counts (a sub-run's view has no bar)."""
        status = self.status
        if status is None:
            return
        match event:
            case ev.RequestSent():
                status.waiting_tokens = max(event.prompt_tokens, 1)
            case ev.ResponseStarted():
                status.waiting_tokens = 0
            case ev.UsageUpdated():
                status.input_tokens = event.total.input_tokens
                status.output_tokens = event.total.output_tokens
                status.cost_usd = event.cost_usd
                if event.context_window:  # a compaction's summary request does not size one
                    status.context_tokens = event.context_tokens
                    status.context_window = event.context_window
                    status.context_limit = event.context_limit

    async def _notice(self, event: ev.Notice) -> None:
        await self.end_answer()
        if event.action == "continue":
            await self.transcript.add(ContinueNote(event.text, CONTINUE_PROMPT))
        else:
            await self.transcript.add(Note(event.text, event.level))

    async def _pruned(self, event: ev.ContextPruned) -> None:
        """One note per request that leaves something out, unless it repeats the last one."""
        left_out = ", ".join(event.dropped + event.shrunk)
        if left_out != self.pruned:
            self.pruned = left_out
            await self.end_answer()
            text = f"Context trimmed to fit (request {event.round}): left out {left_out}"
            await self.transcript.add(Note(text, "warning"))

    async def _error(self, event: ev.ErrorEvent) -> None:
        if self.status is not None:
            self.status.waiting_tokens = 0
        await self.end_answer()
        self._drop_streaming()
        # Retry only helps when the same request can succeed (rate limit, cut stream).
        error = (
            ErrorNote(event.message, self.prompt)
            if event.retryable
            else Note(f"✗ {event.message}", "error")
        )
        await self.transcript.add(error)

    async def _finished(self, event: ev.TurnFinished) -> None:
        self.local = event.stop_reason == "local_command"
        if self.status is not None:  # a cancelled request is not waited for any more
            self.status.waiting_tokens = 0
        await self.end_answer()
        self._drop_streaming()
        self.finished = event
        if event.cancelled:
            await self.transcript.add(Note("Turn cancelled.", "warning"))

    async def _streaming(self, event: ev.ToolCallStreaming) -> None:
        """A call still streaming its arguments: a pending card, updated with the progress."""
        message = progress_message(event)
        if pending := self.streaming.get(event.call_id):
            pending.set_streaming(message)
            return
        await self.end_answer()
        pending = ToolCard(CardState(event.call_id, event.name, message=message))
        self.streaming[event.call_id] = pending
        await self.transcript.add(pending)

    def _drop_streaming(self, why: str = "The call's arguments did not arrive complete.") -> None:
        """Pending cards of calls that never arrived whole (a cut stream, an error) end as errors."""
        for pending in self.streaming.values():
            pending.set_finished(why, True, None, "", 0.0)
        self.streaming.clear()

    async def cancelled(self) -> None:
        """The turn's task was cancelled before TurnFinished: close the answer, say so."""
        await self.end_answer()
        self._drop_streaming("cancelled")
        for nested, view in self.subagents.values():
            if view.finished is None:  # Esc cancelled the sub-run with the turn
                await view.cancelled()
                nested.finish(True)
        for card in self.cards.values():
            if card.state.status in ("running", "waiting"):
                card.set_cancelled()
        if self.finished is None:
            await self.transcript.add(Note("Turn cancelled.", "warning"))
