"""The agent loop: a turn is rounds of (stream from the model -> run its tool calls) (DESIGN §2).

``Agent.run(text)`` yields events from ``events.py``. Stop conditions are exceptions carrying a
message; the one broad catch is at the top of a turn. However a turn ends (done, error, cancel),
every tool call in the conversation has a result, so the next request is valid.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui import events as ev
from agent_tui.agent.assemble import RoundAssembler
from agent_tui.agent.budget import DEFAULT_CONTEXT_WINDOW, ContextBudget, prompt_tokens
from agent_tui.agent.call_progress import CallProgress
from agent_tui.agent.compaction.run import auto_compact
from agent_tui.agent.context_window import WindowDiscovery, usable_state_dir
from agent_tui.agent.exact_count import ExactCounter
from agent_tui.agent.execute import CallProcessor
from agent_tui.agent.folder_instructions import SHOWN_KEY as FOLDER_INSTRUCTIONS_SHOWN
from agent_tui.agent.instructions import small_window_prompt
from agent_tui.agent.past_calls import slim_past_calls
from agent_tui.agent.pricing import add_usage
from agent_tui.agent.prompt import BuiltPrompt, request_message
from agent_tui.agent.pruned_outputs import forget_pruned_outputs
from agent_tui.agent.references import ReferenceRegistry, builtin_reference_registry
from agent_tui.agent.repetition import Repetition, RepetitionWatch, without_repeats
from agent_tui.agent.reply_checks import ReplyChecks
from agent_tui.agent.request_fit import Attempt, fit, provider_request, still_too_long
from agent_tui.agent.saved_state import gone_tools_notice, record_event
from agent_tui.agent.spend import check_budget
from agent_tui.agent.text_calls import calls_from_text, new_gate
from agent_tui.agent.totals import SessionTotals
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.commands.registry import CommandRegistry, CommandResult
from agent_tui.config import Config, ModelConfig
from agent_tui.conversation import (
    Conversation,
    ImageBlock,
    Message,
    ToolResultBlock,
    user_text,
)
from agent_tui.errors import (
    AgentError,
    ContextOverflow,
    RoundLimitReached,
    StreamInterrupted,
    UnusableReply,
)
from agent_tui.participants.registry import ParticipantRegistry
from agent_tui.plural import plural
from agent_tui.providers import base as pv
from agent_tui.providers.base import Provider, ToolSpec, Usage
from agent_tui.providers.text_tool_calls import TextCallGate, text_calls_enabled
from agent_tui.tools.base import SessionState
from agent_tui.tools.registry import ToolRegistry
from agent_tui.tools.todo import current as current_todo
from agent_tui.tools.todo import reminder as todo_reminder
from agent_tui.tools.todo import restore_todo, rewind_todo

if TYPE_CHECKING:
    from agent_tui.agent.assemble import RawCall
    from agent_tui.agent.turn import TurnPlan
    from agent_tui.checkpoints.recorder import Checkpoints
    from agent_tui.lsp.manager import LspManager
    from agent_tui.mcp.manager import McpManager
    from agent_tui.sandbox.runtime import Sandbox
    from agent_tui.sessions.history import History
    from agent_tui.sessions.writer import SessionRecorder

logger = logging.getLogger(__name__)

CANCELLED_RESULT = "The user cancelled this tool call before it finished; it may not have run."
CONTINUE_PROMPT = "Continue exactly where your last answer was cut off."
__all__ = ["CANCELLED_RESULT", "CONTINUE_PROMPT", "DEFAULT_CONTEXT_WINDOW", "Agent", "AgentDeps"]


@dataclass
class AgentDeps:
    """What an Agent works with: config, provider, tools, approvals, session and the optional
    services."""

    config: Config
    provider: Provider
    tools: ToolRegistry
    approvals: ApprovalEngine
    workspace: Path
    session: SessionState
    commands: CommandRegistry
    participants: ParticipantRegistry
    references: ReferenceRegistry = field(default_factory=builtin_reference_registry)
    mcp: McpManager | None = None  # None when no server is configured
    checkpoints: Checkpoints | None = None  # file snapshots for /undo, /rewind (None: off)
    sandbox: Sandbox | None = None  # where commands run (None: as they are)
    lsp: LspManager | None = None  # language servers for diagnostics (None: none available)

    def __post_init__(self) -> None:
        # One list of extra roots (`--add-dir`, `/add-dir`): the tools read the session's, and
        # the approval engine must judge paths by the same folders.
        self.approvals.extra_roots = self.session.extra_roots


@dataclass
class _TurnState:
    """What one turn has done so far: rounds, usage, the last text and why it stopped."""

    rounds: int = 0
    usage: Usage = field(default_factory=Usage)
    final_text: str = ""
    stop_reason: str = ""
    called_tools: bool = False
    answered: bool = False  # an assistant message of this turn is in the conversation
    round_limit: int = 25
    checks: ReplyChecks = field(default_factory=lambda: ReplyChecks(False))
    round_text: str = ""  # the text of the last round's reply (not its calls written as text)
    nudged: bool = False  # the last round's reply was answered with a nudge: another round


class _Reply:
    """What a round's request brought back: filled by ``_query``, read by the later phases."""

    specs: list[ToolSpec]  # the tools the request offered (toolsearch/: within the window)
    built: BuiltPrompt
    assembler: RoundAssembler
    gate: TextCallGate
    calls: list[RawCall]

    def start(self, built: BuiltPrompt, gate: TextCallGate) -> None:
        """A new request: a fresh assembler and text-call gate (a retry starts over)."""
        self.built, self.assembler, self.gate, self.calls = built, RoundAssembler(), gate, []


class Agent:
    """One chat session: the conversation, the model and the tools."""

    def __init__(self, deps: AgentDeps) -> None:
        self.deps = deps
        self._conversation = Conversation()
        self._history: History | None = None  # a resumed session's, until it is parsed
        self.budget = ContextBudget()  # the context window and token estimate, per model
        # The window the server says it has.
        self.window_discovery = WindowDiscovery(usable_state_dir())
        self.exact_counter = ExactCounter()  # the server's tokenizer, asked near the limit
        # The session's tokens, money and edited lines, its earlier runs' included (resume.py).
        self.totals = SessionTotals()
        self.last_turn_usage = Usage()  # the last turn that asked the model (/cost)
        self.model: ModelConfig = deps.config.model
        self.max_rounds = deps.config.max_rounds
        # False under -p: commands that only make sense in the app are refused, not ignored.
        self.interactive = True
        # A sub-agent's run (run_agent): the parent's session state, its own conversation.
        self.sub_agent = False
        # Called with events that happen outside a turn (/undo and /rewind in the app).
        self.listeners: list[Callable[[ev.Event], None]] = []
        self.last_prompt_index: int | None = None  # the last turn's user message (for /rewind)
        self.recorder: SessionRecorder | None = None  # the session file (tests may leave None)
        # Steering: user messages sent during a turn, for the next round boundary (see steer).
        self.steering: list[str] = []

    @property
    def total_usage(self) -> Usage:
        """The session's tokens so far, every model's and every run's."""
        return self.totals.spent.usage

    @property
    def conversation(self) -> Conversation:
        """The conversation the next request is built from. A resumed session's is parsed
        after its first screen (``sessions/history.py``): read before that, what is left of it
        is parsed now; a turn waits for it without blocking (``history_ready``)."""
        if self._history is not None:
            self._take(self._history.finish())
        return self._conversation

    @conversation.setter
    def conversation(self, conversation: Conversation) -> None:
        self._drop_history()
        self._conversation = conversation

    def resume_history(self, history: History) -> None:
        """Continue a resumed session whose conversation ``history`` is still parsing."""
        self._drop_history()
        self._conversation, self._history = Conversation(), history

    def _drop_history(self) -> None:
        if self._history is not None:
            self._history.close()  # another session replaces it: its parse stops
            self._history = None

    async def history_ready(self) -> None:
        """Wait until a resumed session's conversation is complete (at once when it is)."""
        history = self._history
        if history is not None:
            conversation = await history.complete()
            if self._history is history:
                self._take(conversation)

    def _take(self, conversation: Conversation) -> None:
        self._conversation, self._history = conversation, None

    def steer(self, text: str) -> None:
        """Send ``text`` to the running turn: it goes to the model as user text after the
        current round's tool results. A turn that ends without another round leaves it in
        :attr:`steering` for the caller to send as the next prompt (``take_steering``)."""
        self.steering.append(text)

    def take_steering(self) -> list[str]:
        """The steering messages no round took (the turn ended first); clears them."""
        taken, self.steering = self.steering, []
        return taken

    def start(self) -> None:
        """Start background services (MCP servers, asking the server its context window);
        call inside the running event loop."""
        if self.deps.mcp is not None:
            self.deps.mcp.start_all()
        self.window_discovery.start(self.model)

    async def wait_ready(self) -> list[str]:
        """Wait until MCP servers have started or failed (headless: before the first turn).

        Returns:
            Notices for the user: servers that failed, workspace servers not started (untrusted).
        """
        mcp = self.deps.mcp
        if mcp is None:
            return []
        await mcp.wait_started()  # bounded: a server that cannot connect in time is failed
        failed = [
            f"MCP server {name} failed: {state.error}"
            for name, state in mcp.servers.items()
            if state.status == "failed"
        ]
        from agent_tui.mcp.tool_cap import cap_notice

        capped = cap_notice(self.deps.tools)
        stray = mcp.stray_output_notices()
        return [*mcp.notices, *failed, *stray, *([capped] if capped else [])]

    async def aclose(self) -> None:
        """Stop MCP and language servers, background terminals, the sandbox's network and the
        provider's connections."""
        from agent_tui.agent.turn_hooks import session_ended

        await session_ended(self)
        self._drop_history()
        self.window_discovery.cancel()
        if self.deps.mcp is not None:
            await self.deps.mcp.aclose()
        if self.deps.lsp is not None:
            await self.deps.lsp.aclose()  # language servers: shutdown, then their groups killed
        terminals = self.deps.session.extras.get("terminals")
        if terminals is not None:
            await terminals.aclose()
        if self.deps.sandbox is not None:
            await self.deps.sandbox.aclose()  # its network namespace and proxy
        await self.deps.provider.aclose()

    def reset(self) -> None:
        """Start a new conversation (``/clear``, ``/new``); grants and tools stay."""
        self.conversation.clear()
        # Subfolder AGENTS.md files are given once per conversation: the new one gets them again.
        self.deps.session.extras.pop(FOLDER_INSTRUCTIONS_SHOWN, None)
        restore_todo(self.deps.session, ())  # the todo list was this conversation's
        if self.deps.checkpoints is not None:
            self.deps.checkpoints.new_run()  # its turn numbers start again

    def publish(self, event: ev.Event) -> None:
        """Tell the listeners about an event that happened outside a turn, and save it: a
        resumed session replays what /undo and /rewind did (sessions/timeline.py)."""
        self.record(event)
        self.totals.lines.observe(event)
        for listener in self.listeners:
            listener(event)

    def rewind_conversation(self, to: int) -> ev.ConversationRewound:
        """Drop the conversation from message ``to`` on (/rewind); returns the event to report."""
        self.conversation.truncate(to)
        rewind_todo(self.deps.session, to)  # the todo list as it stood then
        if self.deps.checkpoints is not None:
            self.deps.checkpoints.rewound(to)
        return ev.ConversationRewound(to)

    async def set_model(self, model: ModelConfig, provider: Provider) -> None:
        """Switch model (``/model``): MCP sampling follows, and the old connection is closed."""
        old = self.deps.provider
        self.model = model
        self.deps.provider = provider
        self.window_discovery.start(model)  # its own window (agent/model_switch.context_size)
        if self.deps.mcp is not None:
            from agent_tui.mcp.sampling import complete_with

            self.deps.mcp.hooks.complete = complete_with(provider, model.name)
            self.deps.mcp.hooks.model_name = model.name
        if old is not provider:
            await old.aclose()

    async def run(
        self, text: str, images: Sequence[ImageBlock] = ()
    ) -> AsyncGenerator[ev.Event, None]:
        """Run one user turn, yielding its events (``images``: ``--image`` files, shown with it).

        Cancel the task that iterates this generator to cancel the turn: the conversation is
        left valid (a partial answer is kept, unanswered tool calls get a "cancelled" result).
        Each event, and the messages the conversation gained before it, reach the session file
        before the consumer sees the event; what the turn's end changes is written last.
        """
        await self.history_ready()  # a resumed session's whole conversation, before anything
        turn = self._turn(text, images)
        try:
            async for event in turn:
                self.record(event)
                self.totals.lines.observe(event)  # an undo a command did (-p, an editor)
                if isinstance(event, ev.TurnFinished) and event.stop_reason != "local_command":
                    self.last_turn_usage = event.usage
                yield event
        finally:
            await turn.aclose()
            if self.recorder is not None:
                self.recorder.sync(self.conversation)

    def record(self, event: ev.Event | None = None) -> None:
        """Save what changed outside a turn (an app command changed the conversation), and
        ``event`` when given: the session file stays in step with what the next request holds."""
        record_event(self, event)  # and the state it keeps: roots, tools loaded, the todo list

    async def _turn(
        self, text: str, images: Sequence[ImageBlock]
    ) -> AsyncGenerator[ev.Event, None]:
        """One user turn: plan it (commands run there), then a local command's result or the
        prompt, the rounds it takes and the turn's end."""
        from agent_tui.agent.turn import plan_events

        plans: list[TurnPlan] = []
        async for event in plan_events(self, text, plans):  # the one place commands run
            yield event
        if not plans:
            return
        plan = plans[0]
        if plan.local_result is not None:
            async for event in self._local_command(plan, plan.local_result):
                yield event
            return
        async for event in self._announce(plan):
            yield event
        from agent_tui.agent.turn_hooks import prompt_submitted

        hooked = await prompt_submitted(self, plan.text)
        for event in hooked.events:
            yield event
        if hooked.blocked is not None:  # Claude Code: the prompt is erased, the user told why
            yield ev.ErrorEvent(hooked.blocked)
            yield ev.TurnFinished("", "hook_blocked", 0, Usage())
            return
        prompt = f"{plan.text}\n\n{hooked.context}" if hooked.context else plan.text
        # Closed with the turn, so its clean-up runs before run() saves the session.
        async with aclosing(self._converse(plan, prompt, text, images)) as conversing:
            async for event in conversing:
                yield event

    async def _local_command(
        self, plan: TurnPlan, result: CommandResult
    ) -> AsyncIterator[ev.Event]:
        """A command answered without a model turn: its events, then what it asks for."""
        usage = Usage()
        for event in result.emitted:
            yield event
        if result.events is not None:  # a command that works through the model (/compact)
            try:
                async for event in result.events():
                    if isinstance(event, ev.UsageUpdated):
                        usage = add_usage(usage, event.usage)
                    yield event
            except AgentError as exc:
                yield ev.ErrorEvent(f"/{plan.command}: {exc}", exit_code=exc.exit_code)
        yield ev.CommandHandled(plan.command, result.message, result.action, dict(result.data))
        yield ev.TurnFinished("", "local_command", 0, usage)

    async def _announce(self, plan: TurnPlan) -> AsyncIterator[ev.Event]:
        """The turn starts: MCP servers still starting are waited for, the plan's notices shown."""
        if self.deps.mcp is not None and self.deps.mcp.starting():
            from agent_tui.mcp.startup import wait_for_servers

            async for event in wait_for_servers(self.deps.mcp):
                yield event
        yield ev.TurnStarted(
            plan.text, plan.participant, plan.command, tuple(r.label for r in plan.references)
        )
        for notice in plan.notices:
            yield ev.Notice(notice, "warning")

    async def _converse(
        self, plan: TurnPlan, prompt: str, text: str, images: Sequence[ImageBlock]
    ) -> AsyncGenerator[ev.Event, None]:
        """The prompt goes in, rounds run until the model is done; however the turn ends,
        every call has a result and a turn the model never answered is undone."""
        model = self.model
        checks = ReplyChecks(text_calls_enabled(model.text_tool_calls, model.base_url))
        state = _TurnState(round_limit=self.max_rounds, checks=checks)
        # A conversation cut by /rewind (or loaded) may end on calls without results.
        self.conversation.answer_unanswered(CANCELLED_RESULT)
        # The conversation is the one source of every request (see _round); a turn the model
        # never answered (an error or cancel before any output, an empty answer) is undone, so
        # sending the prompt again puts it in the request once.
        checkpoint = self.conversation.checkpoint()
        async for event in self._add_prompt(plan, prompt, text, images):
            yield event
        cancelled = True
        try:
            async for event in self._rounds(plan, state):
                yield event
            cancelled = False
        except AgentError as exc:
            cancelled = False
            yield _error_event(exc)
        except Exception as exc:  # the one broad catch: a bug must not kill the session
            cancelled = False
            logger.exception("turn failed")
            yield ev.ErrorEvent(f"internal error: {type(exc).__name__}: {exc}")
        finally:
            self.conversation.answer_unanswered(CANCELLED_RESULT)
            # A flag, not the messages after the checkpoint: a compaction shortens the list.
            if not state.answered:
                self.conversation.restore(checkpoint)
            if self.deps.checkpoints is not None:
                self.deps.checkpoints.end_turn()
        added, removed = self.totals.lines.of_turn(self.last_prompt_index)
        yield ev.TurnFinished(
            state.final_text,
            state.stop_reason or "error",
            state.rounds,
            state.usage,
            cancelled,
            added,
            removed,
        )

    async def _add_prompt(
        self, plan: TurnPlan, prompt: str, text: str, images: Sequence[ImageBlock]
    ) -> AsyncIterator[ev.Event]:
        """The user's message joins the conversation (with the mode's note); file snapshots
        of the turn begin."""
        from agent_tui.modes.notes import note_for

        # Plan mode entered or left since the model last heard: it is told with this message.
        mode_note = note_for(self.conversation, self.deps.approvals.modes.current)
        if mode_note is not None:
            yield ev.Notice(mode_note.shown)
        # Items left open when the last turn ended: said once, with this prompt, not every round.
        todo_note = todo_reminder(current_todo(self.deps.session))
        notes = tuple(n for n in (mode_note.text if mode_note else None, todo_note) if n)
        self.conversation.append_user(request_message(prompt, plan.references, images, notes))
        index = self.last_prompt_index = len(self.conversation.messages) - 1
        if self.deps.checkpoints is not None:
            self.deps.checkpoints.begin_turn(index, text)

    async def _rounds(self, plan: TurnPlan, state: _TurnState) -> AsyncIterator[ev.Event]:
        """Rounds until the model answers without calling a tool and no Stop hook objects."""
        from agent_tui.agent.turn_hooks import stop_requested

        stop_active = False
        while True:
            if state.rounds >= state.round_limit:
                async for event in self._round_limit(state):
                    yield event
            state.rounds += 1
            async for event in self._round(plan, state):
                yield event
            if state.called_tools or state.nudged:
                continue
            notices, go_on = await stop_requested(self, stop_active)
            for event in notices:
                yield event
            if go_on is None:
                return
            stop_active = True
            self.conversation.append_user(request_message(f"Stop hook: {go_on}", ()))

    async def _round_limit(self, state: _TurnState) -> AsyncIterator[ev.Event]:
        proceed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        yield ev.RoundLimitHit(state.rounds, proceed)
        if not await proceed:
            raise RoundLimitReached(
                f"stopped after {plural(state.rounds, 'round')} (the round limit); "
                "raise it with --max-turns or agent.max_rounds"
            )
        state.round_limit += self.max_rounds  # for this turn only; the next starts afresh

    async def _round(self, plan: TurnPlan, state: _TurnState) -> AsyncIterator[ev.Event]:
        """One round: query the model, keep its answer, execute the calls it made."""
        reply = _Reply()
        if not self.sub_agent and (gone := gone_tools_notice(self.deps)) is not None:
            yield ev.Notice(gone, level="warning")  # once, after a resume
        async for event in self._query(plan, state, reply):
            yield event
        specs = reply.specs
        async for event in self._keep_answer(state, specs, reply):
            yield event
        if reply.calls:
            async for event in self._execute(state, specs, reply.calls):
                yield event
        for event in self._check_reply(state, specs, reply):
            yield event

    def _offered(self, plan: TurnPlan) -> tuple[list[ToolSpec], TurnPlan]:
        """The tools this round offers, within the measured window (``toolsearch/``), and the
        plan with short instructions when the window is small or the server local."""
        from agent_tui.toolsearch.offer import small_window
        from agent_tui.toolsearch.session import offer_for

        window, local = self.budget.window(self.model), self.budget.local_server(self.model)
        deps = self.deps
        specs = offer_for(deps.tools, deps.session, deps.config, plan.tool_names, window, local)
        if small_window(window, local):
            searching = any(spec.name == "tool_search" for spec in specs)
            plan = replace(plan, system_prompt=small_window_prompt(plan.system_prompt, searching))
        return specs, plan

    def _check_reply(
        self, state: _TurnState, specs: list[ToolSpec], reply: _Reply
    ) -> Iterator[ev.Event]:
        """Nudge the model after a reply made of template markup or a call told in prose
        (``reply_checks.py``); a second failed round in a row ends the turn (UnusableReply)."""
        try:
            nudge = state.checks.after_round(state.round_text, reply.calls, specs)
        except UnusableReply:
            state.final_text = ""  # never reported as the answer
            raise
        state.nudged = nudge is not None
        if nudge is None:
            return
        if state.final_text == state.round_text:
            state.final_text = ""  # the markup or the description is not the turn's answer
        yield ev.Notice(nudge.notice, "warning")
        self.conversation.append_user(request_message(nudge.message, ()))

    async def _query(
        self, plan: TurnPlan, state: _TurnState, reply: _Reply
    ) -> AsyncIterator[ev.Event]:
        """Build the request from the conversation and stream the answer into ``reply``.

        A request the server counts over the window, or refuses as too long before any output,
        is built again (pruned or compacted) and sent once more.
        """
        attempt = Attempt()
        async for note in self.window_discovery.waiting(self.model):
            yield ev.Notice(note)  # a server still loading its model is waited for, and said so
        if (served := self.window_discovery.found.get(self.model.name)) is not None:
            self.budget.served[self.model.name] = served[0]
        # The calls that ran keep their long arguments (a file's content) out of every request
        # from now on; the file is on disk for the model to read back.
        slim_past_calls(self.conversation)
        specs, plan = self._offered(plan)  # the window is known: the tools that fit it
        reply.specs = specs
        tools_chars = sum(len(s.description) + len(str(s.input_schema)) for s in specs)
        while True:
            # Near the window (or the smaller one a "too long" revealed) a summary of the older
            # turns comes before pruning drops them.
            async for event in auto_compact(self, plan.system_prompt, tools_chars):
                if isinstance(event, ev.UsageUpdated):
                    state.usage = add_usage(state.usage, event.usage)
                yield event
            built = await fit(self, plan, specs, tools_chars, attempt)
            if built is None:
                continue  # prune (or compact) to the exact count before sending
            for event in self._send(state, specs, reply, built, attempt):
                yield event
            try:
                async for event in self._stream(state, specs, reply):
                    yield event
            except ContextOverflow as exc:
                # Refused before any output: learn the server's size, prune, try once more.
                if attempt.overflow is not None:
                    raise still_too_long(self, exc) from None
                attempt.overflow = exc
                self.budget.learn_overflow(self.model, built, exc)
                continue
            except BaseException:
                # Keep what arrived (not the half-made tool calls) so the user can read and retry.
                partial = reply.assembler.message(None)
                if not partial.is_empty_answer:
                    self.conversation.append(partial)
                    state.answered = True
                raise
            return

    def _send(
        self,
        state: _TurnState,
        specs: list[ToolSpec],
        reply: _Reply,
        built: BuiltPrompt,
        attempt: Attempt,
    ) -> Iterator[ev.Event]:
        """Say what the request left out, then start ``reply`` on it and report it sent.

        Raises:
            CostLimitReached: the request would take the session past ``[agent] max_cost``.
        """
        if (unpriced := check_budget(self, self.budget.scaled(self.model, built))) is not None:
            yield ev.Notice(unpriced, "warning")
        if attempt.overflow is not None:
            yield ev.Notice(self.budget.overflow_notice(self.model, attempt.overflow), "warning")
        if built.dropped or built.shrunk:
            yield ev.ContextPruned(built.dropped, built.shrunk, state.rounds)
        forget_pruned_outputs(self.conversation, built.messages)  # no request carries them
        reply.start(built, new_gate(self.model, [s.name for s in specs]))
        yield ev.RequestSent(state.rounds, self.budget.scaled(self.model, built))

    async def _stream(
        self, state: _TurnState, specs: list[ToolSpec], reply: _Reply
    ) -> AsyncIterator[ev.Event]:
        """The provider's stream, shown as it arrives (calls written as text are held back)."""
        progress = CallProgress()
        responded = False
        watch = RepetitionWatch()
        async for pev in self.deps.provider.stream(provider_request(self, reply.built, specs)):
            if not responded:
                responded = True
                yield ev.ResponseStarted(state.rounds)
            reply.assembler.feed(pev)
            if isinstance(pev, pv.TextDelta):
                if (loop := watch.feed(pev.text)) is not None:
                    raise self._repeating(reply, loop)
                if shown := reply.gate.feed(pev.text):
                    yield ev.TextDelta(shown)
            elif isinstance(pev, pv.ThinkingDelta) and pev.text:
                yield ev.ThinkingDelta(pev.text)
            elif isinstance(pev, pv.WebSearch):
                yield ev.WebSearched(pev.query, pev.sources, pev.error)
            elif (streaming := progress.feed(pev)) is not None:
                yield streaming

    def _repeating(self, reply: _Reply, loop: Repetition) -> UnusableReply:
        """Stop a reply that repeats itself: the conversation keeps one copy of the block."""
        reply.assembler.text = [without_repeats(reply.assembler.partial_text, loop)]
        temperature = self.model.sampling_temperature(self.budget.local_server(self.model))
        return UnusableReply(
            f"the model repeated the same text {loop.count} times in a row "
            f"({len(loop.block):,} characters each); the reply was stopped (try again, or set a "
            f"lower model.temperature, now {temperature if temperature is not None else 'unset'})"
        )

    async def _keep_answer(
        self, state: _TurnState, specs: list[ToolSpec], reply: _Reply
    ) -> AsyncIterator[ev.Event]:
        """Count the usage, add the answer to the conversation and find its calls."""
        assembler, built = reply.assembler, reply.built
        self.budget.observe(self.model, built, assembler.usage)
        state.usage = add_usage(state.usage, assembler.usage)
        self.totals.spent.add(self.model.name, assembler.usage)
        yield ev.UsageUpdated(
            assembler.usage,
            self.total_usage,
            self.totals.spent.usd(),
            prompt_tokens(assembler.usage) or self.budget.scaled(self.model, built),
            self.budget.window(self.model),
            self.budget.prompt_limit(self.model),
            self.model.name,
        )
        state.stop_reason = assembler.stop_reason or "end_turn"
        calls = assembler.finished_calls()
        if reply.gate.holding:
            offered = [s.name for s in specs]
            from_text = None if calls else calls_from_text(assembler.partial_text, offered)
            if from_text is None:
                yield ev.TextDelta(reply.gate.release())  # an answer after all: show what was held
            else:
                calls, assembler.text = from_text.calls, []
                for notice in from_text.notices:
                    yield notice
        state.called_tools = bool(calls)
        state.round_text = "" if calls else assembler.partial_text
        reply.calls = calls
        async for event in self._append_answer(state, assembler.message(calls)):
            yield event
        if assembler.text:
            state.final_text = assembler.partial_text
            yield ev.AssistantMessage(assembler.partial_text, state.rounds)
        for event in self._after_answer(state, assembler):
            yield event

    def _after_answer(self, state: _TurnState, assembler: RoundAssembler) -> list[ev.Event]:
        """What follows an answer: the sources it cites, why it stopped short."""
        out: list[ev.Event] = []
        if assembler.citations:
            cited = assembler.citations.values()
            out.append(ev.AnswerCited(tuple(pv.WebSource(c.title, c.url) for c in cited)))
        if state.stop_reason == "max_tokens":
            out.append(
                ev.Notice(
                    f"The answer was cut at max_tokens ({self.budget.reply_tokens(self.model)}); "
                    "raise model.max_tokens, or ask the model to continue.",
                    "warning",
                    action="continue",
                )
            )
        elif state.stop_reason == "pause_turn":  # Anthropic: a long server-side search paused
            out.append(
                ev.Notice(
                    "The provider paused its web search mid-answer; ask the model to continue.",
                    "warning",
                    action="continue",
                )
            )
        return out

    async def _append_answer(self, state: _TurnState, message: Message) -> AsyncIterator[ev.Event]:
        if message.is_empty_answer:
            # Neither API takes an empty assistant message back; the turn is undone if nothing
            # else of it was answered (see run).
            undone = state.rounds == 1  # nothing else of the turn was kept: run() undoes it
            yield ev.Notice(
                f"The model sent an empty answer (stop reason: {state.stop_reason})."
                + (" Your message was left out of the conversation." if undone else ""),
                "warning",
            )
        else:
            self.conversation.append(message)
            state.answered = True

    async def _execute(
        self, state: _TurnState, specs: list[ToolSpec], calls: list[RawCall]
    ) -> AsyncIterator[ev.Event]:
        """Run the calls, then hand the model what the user typed meanwhile (steering)."""
        # Only what this request offered may run: not a tool deferred behind tool_search, one
        # disabled or registered since, or one outside the participant's or sub-agent's set.
        async for event in self._run_calls(calls, [s.name for s in specs]):
            inner = event.inner if isinstance(event, ev.SubagentEvent) else None
            if isinstance(inner, ev.UsageUpdated):
                # A sub-agent's tokens count into this turn (its own totals are its own).
                state.usage = add_usage(state.usage, inner.usage)
                self.totals.spent.add(inner.model or self.model.name, inner.usage)
            finished = inner if inner is not None else event
            if isinstance(finished, ev.ToolCallFinished):  # a sub-agent's edits are the turn's
                self.totals.lines.count(self.last_prompt_index, finished)
            yield event
        if self.steering:
            # After the results (they lead the user message), so the next request stays valid.
            texts = tuple(self.take_steering())
            self.conversation.append_user(user_text("\n\n".join(texts)))
            yield ev.SteeringDelivered(texts)

    async def _run_calls(self, calls: list[RawCall], offered: list[str]) -> AsyncIterator[ev.Event]:
        queue: asyncio.Queue[ev.Event | None] = asyncio.Queue()
        processor = CallProcessor(self.deps, offered, queue.put_nowait, self)

        async def work() -> None:
            try:
                await processor.run(calls)
            finally:
                queue.put_nowait(None)

        task = asyncio.create_task(work())
        try:
            while (event := await queue.get()) is not None:
                yield event
            await task  # re-raises an AgentError from an approval (e.g. --on-approval fail)
        finally:
            if not task.done():
                task.cancel()
            # Results in call order, edited inputs included; missing ones are filled on cancel.
            blocks = [
                ToolResultBlock(
                    c.id,
                    processor.results[c.id].content,
                    processor.results[c.id].is_error,
                    processor.results[c.id].images,
                )
                for c in calls
                if c.id in processor.results
            ]
            if processor.edited:
                self.conversation.edit_last_inputs(processor.edited)
            if blocks:
                self.conversation.append_user(Message("user", list(blocks)))


def _error_event(exc: AgentError) -> ev.ErrorEvent:
    """What a turn ended by an expected error shows (retryable ones say how to retry)."""
    logger.warning("turn ended with %s: %s", type(exc).__name__, exc)
    partial = exc.partial_text if isinstance(exc, StreamInterrupted) else ""
    retryable = getattr(exc, "retryable", False)
    retry = " (send your message again to retry)" if retryable else ""
    return ev.ErrorEvent(f"{exc}{retry}", retryable, partial, exc.exit_code)
