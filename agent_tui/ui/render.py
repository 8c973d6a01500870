"""Turn the agent's events into transcript entries (one ``TurnView`` per turn).

Questions (``ApprovalRequested``, ``RoundLimitHit``) are answered by the app; this class only draws.
"""

from __future__ import annotations

from typing import Protocol

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

    @staticmethod
    def _status(status: StatusBar, event: ev.Event) -> None:
        """The status bar's share of an event: the wait, a compaction, tokens, the meter."""
        # A compaction's summary request yields nothing until it is done: the next event
        # (its usage, a notice, an error) ends the "compacting…" state.
        begun = event if isinstance(event, ev.CompactionStarted) else None
        status.compacting = compacting_text(begun) if begun is not None else ""
        if isinstance(event, ev.RequestSent):
            status.waiting_tokens = max(event.prompt_tokens, 1)
        elif isinstance(event, ev.ResponseStarted):
            status.waiting_tokens = 0
        elif isinstance(event, ev.UsageUpdated):
            status.input_tokens = event.total.input_tokens
            status.output_tokens = event.total.output_tokens
            status.cost_usd = event.cost_usd
            if event.context_window:  # a compaction's summary request does not size a request
                status.context_tokens = event.context_tokens
                status.context_window = event.context_window
                status.context_limit = event.context_limit

    async def handle(self, event: ev.Event) -> None:
        """Draw one event (every type the agent emits; unknown ones are ignored)."""
        if self.status is not None:
            self._status(self.status, event)
        if isinstance(event, ev.SubagentEvent):
            await self._subagent(event)
        elif isinstance(event, ev.TextDelta):
            await (await self._answer()).append_text(event.text)
        elif isinstance(event, ev.ThinkingDelta):
            await (await self._answer()).append_thinking(event.text)
        elif isinstance(event, ev.ToolCallStreaming):
            await self._streaming(event)
        elif isinstance(event, ev.ToolCallStarted):
            await self.end_answer()
            message = event.prepared.invocation_message if event.prepared else event.name
            if pending := self.streaming.pop(event.call_id, None):
                pending.set_started(event.kind, event.input, message)
                self.cards[event.call_id] = pending
            else:
                note = "parsed from text" if event.origin == "text" else ""
                card = ToolCard(
                    CardState(
                        event.call_id, event.name, event.kind, event.input, message, note=note
                    )
                )
                self.cards[event.call_id] = card
                await self.transcript.add(card)
        elif isinstance(event, ev.ApprovalRequested):
            if waiting := self.cards.get(event.call_id):
                confirmation = event.prepared.confirmation
                waiting.set_waiting(confirmation.message if confirmation else "")
        elif isinstance(event, ev.ToolCallDecided):
            if decided := self.cards.get(event.call_id):
                decided.set_decided(event.allowed, event.reason)
        elif isinstance(event, ev.ToolOutputDelta):
            if running := self.cards.get(event.call_id):
                running.append_output(event.text)
        elif isinstance(event, ev.ToolProgress):
            if reporting := self.cards.get(event.call_id):
                reporting.set_progress(event.progress, event.total, event.message)
        elif isinstance(event, ev.ToolCallFinished):
            if finished := self.cards.get(event.call_id):
                result = event.result
                code = result.data.get("exit_code")
                finished.set_finished(
                    result.content,
                    result.is_error,
                    result.display,
                    event.past_tense_message,
                    event.duration_s,
                    exit_code=code if isinstance(code, int) else None,
                )
        elif isinstance(event, ev.TurnStarted) and event.references:
            # The chips: what was attached, in the form that says what it is (an @path as #file:).
            await self.transcript.add(Note(f"attached {', '.join(event.references)}"))
        elif isinstance(event, ev.Notice):
            await self.end_answer()
            if event.action == "continue":
                await self.transcript.add(ContinueNote(event.text, CONTINUE_PROMPT))
            else:
                await self.transcript.add(Note(event.text, event.level))
        elif isinstance(event, ev.ContextPruned):
            # One note per request that leaves something out, unless it repeats the last one.
            left_out = ", ".join(event.dropped + event.shrunk)
            if left_out != self.pruned:
                self.pruned = left_out
                await self.end_answer()
                text = f"Context trimmed to fit (request {event.round}): left out {left_out}"
                await self.transcript.add(Note(text, "warning"))
        elif isinstance(event, ev.ConversationCompacted):
            await self.end_answer()
            await self.transcript.add(CompactionCard(event))
        elif isinstance(event, ev.ErrorEvent):
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
        elif isinstance(event, ev.TurnFinished):
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
