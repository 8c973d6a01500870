"""One ACP session: a ``Front`` and the client it reports to.

A prompt runs as a task of its own, so ``session/cancel`` can cancel it as Esc cancels the app's
turn (the door closes the turn and keeps the conversation valid). Its events go out as
``session/update`` notifications; an approval goes out as ``session/request_permission`` and its
answer resolves the event's Future.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.acp import permission, updates
from agent_tui.acp.live_output import LiveOutput
from agent_tui.acp.prompt import to_user_input
from agent_tui.front.types import LoadedSession, compaction_note, replay_events
from agent_tui.modes import CYCLE, Mode
from agent_tui.text_safety import one_line, visible

if TYPE_CHECKING:
    from collections.abc import Sequence

    from acp.helpers import ContentBlock
    from acp.interfaces import Client
    from acp.schema import PromptResponse, SessionModeState

    from agent_tui.front import Front

logger = logging.getLogger(__name__)
# The core's stop reasons that ACP has words for; anything else ended the turn normally.
_STOP_REASONS = {"max_tokens": "max_tokens", "refusal": "refusal"}


class AcpSession:
    def __init__(self, front: Front, client: Client) -> None:
        self.front = front
        self.client = client
        self.id = front.sessions.current_id
        self._turn: asyncio.Task[PromptResponse] | None = None
        self._cancelled = False
        self._kinds: dict[str, str] = {}  # call id -> the tool's kind, from its start
        self._titles: dict[str, str] = {}  # call id -> its title at the start (see tool_decided)
        self._usage: Any = None
        self._live = LiveOutput(self._send_output)  # running commands' output, throttled

    def use_client(self, capabilities: dict[str, Any]) -> None:
        """Reads, edits and commands through the client where its ``initialize`` offered them
        (``fs``, ``terminal``); the rest is done here, as without an editor."""
        from agent_tui.acp import client_files
        from agent_tui.acp.client_terminal import ClientTerminalRunner, offers_terminal

        reads, writes = client_files.offers_files(capabilities)
        self.front.use_editor(
            read=client_files.reader(self.client, self) if reads else None,
            write=client_files.writer(self.client, self) if writes else None,
            terminal=ClientTerminalRunner(self.client, self)
            if offers_terminal(capabilities)
            else None,
        )

    # ---- what the client learns outside a turn ----------------------------------------------

    def modes(self) -> SessionModeState:
        from acp.schema import SessionMode, SessionModeState

        return SessionModeState(
            current_mode_id=self.front.mode.value,
            available_modes=[SessionMode(id=m.value, name=m.label) for m in CYCLE],
        )

    async def announce(self, resumed: Sequence[str] = ()) -> None:
        """The slash commands, and what the user should know at start (an untrusted folder's
        settings ignored, --yolo, a sandbox that cannot run; ``resumed``: what loading the
        session left out, its extra roots no longer allowed)."""
        from acp.helpers import update_available_commands

        await self._send(update_available_commands(self._commands()))
        # A sandbox that cannot run is both a warning and a startup notice: said once. Clients
        # draw the chunk as Markdown, so each note is a paragraph of its own.
        notes = dict.fromkeys(
            self.front.warnings()
            + self.front.startup_notices()
            + self.front.state_notices()
            + list(resumed)
        )
        if notes:
            await self._send(updates.message_chunk("\n\n".join(f"note: {n}" for n in notes) + "\n"))

    def _commands(self) -> list[Any]:
        from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

        commands = []
        for view in self.front.completions.commands():
            if view.participant:
                continue  # a participant's command is typed after @name, not offered alone
            hint = one_line(view.args_hint)
            commands.append(
                AvailableCommand(
                    name=one_line(view.name),
                    description=one_line(view.description) or one_line(view.name),
                    input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint))
                    if hint
                    else None,
                )
            )
        return commands

    async def set_mode(self, mode: Mode) -> None:
        from acp.helpers import update_current_mode

        self.front.set_mode(mode)
        await self._send(update_current_mode(mode.value))

    async def replay(self, loaded: LoadedSession) -> None:
        """Send a saved session's transcript as the live turns drew it (``session/load``)."""
        from acp import update_user_message_text

        for drawn in replay_events(loaded.drawable()):
            if isinstance(drawn, ev.TurnStarted):
                await self._send(update_user_message_text(visible(drawn.text)))
            elif isinstance(drawn, ev.Event) and not isinstance(drawn, ev.ApprovalRequested):
                await self._show(drawn)

    # ---- a turn ---------------------------------------------------------------------------------

    async def prompt(self, blocks: list[ContentBlock]) -> PromptResponse:
        from acp import RequestError
        from acp.schema import PromptResponse

        if self._turn is not None and not self._turn.done():
            raise RequestError.invalid_request({"reason": "a prompt is already running"})
        request = to_user_input(blocks, self.front.workspace)
        self._cancelled, self._usage = False, None
        self._turn = asyncio.create_task(self._run(request))
        try:
            return await self._turn
        except asyncio.CancelledError:
            if not self._cancelled:
                raise  # the connection went away: not a cancel the client asked for
            return PromptResponse(stop_reason="cancelled")

    def cancel(self) -> None:
        """Stop the running turn (``session/cancel``); the prompt answers ``cancelled``."""
        if self._turn is not None and not self._turn.done():
            self._cancelled = True
            self._turn.cancel()

    async def _run(self, request: Any) -> PromptResponse:
        from acp.schema import PromptResponse

        stop = "end_turn"
        try:
            async for event in self.front.submit(request):
                stop = await self._handle(event) or stop
        finally:
            self._live.close()
        return PromptResponse(stop_reason=stop, usage=self._usage)  # type: ignore[arg-type]

    async def _handle(self, event: ev.Event) -> str | None:
        """Answer a question the event carries, show the rest; returns a stop reason if any."""
        asked = event.inner if isinstance(event, ev.SubagentEvent) else event
        match asked:
            case ev.ApprovalRequested():
                await self._ask(asked)
            case ev.RoundLimitHit():
                asked.proceed.set_result(False)  # the client can send "continue" as a prompt
                return "max_turn_requests"
            case ev.PromptArgumentsRequested():
                asked.values.set_result(None)  # no form over ACP: the command says what it needs
            case ev.TurnFinished() if event is asked:
                self._usage = _usage(asked)
                return "cancelled" if asked.cancelled else _STOP_REASONS.get(asked.stop_reason)
            case _ if event is asked:
                await self._show(event)
        return None

    async def _show(self, event: ev.Event) -> None:
        match event:
            case ev.TextDelta():
                await self._send(updates.message_chunk(event.text))
            case ev.ThinkingDelta():
                await self._send(updates.thought_chunk(event.text))
            case ev.ToolCallStarted():
                self._kinds[event.call_id] = event.kind
                start = updates.tool_start(event)
                self._titles[event.call_id] = start.title
                await self._send(start)
            case ev.ToolCallDecided():
                title = self._titles.get(event.call_id)
                await self._send(updates.tool_decided(event, title))
            case ev.ToolOutputDelta():
                await self._live.feed(event.call_id, event.text)
            case ev.ToolCallFinished():
                self._live.finish(event.call_id)
                self._titles.pop(event.call_id, None)
                await self._send(updates.tool_finished(event, self._kinds.pop(event.call_id, "")))
            case ev.TodoUpdated():
                await self._send(updates.plan(event))
            case ev.WebSearched():  # no call id of its own: one the client has not seen
                await self._send(updates.web_search(event, f"web_search_{uuid.uuid4().hex[:12]}"))
            case ev.AnswerCited():
                await self._send(updates.cited(event))
            case ev.UsageUpdated():
                if (usage := updates.usage(event)) is not None:
                    await self._send(usage)
            case _:
                if (line := _line(event)) is not None:
                    await self._send(updates.message_chunk(line))

    async def _ask(self, event: ev.ApprovalRequested) -> None:
        from acp import RequestError

        kind = self._kinds.get(event.call_id, "execute")  # the sandbox's asks follow a command
        response = None
        try:
            response = await self.client.request_permission(
                session_id=self.id,
                tool_call=updates.permission_view(event, kind),
                options=permission.options(),
            )
        except (RequestError, ConnectionError) as exc:
            logger.warning("request_permission failed: %s", exc)
        finally:
            # Cancelled or failed: a denial, never an approval.
            if not event.decision.done():
                event.decision.set_result(permission.decision(response, event.suggested_pattern))

    async def _send_output(self, call_id: str, output: str) -> None:
        await self._send(updates.tool_output(call_id, output))

    async def _send(self, update: Any) -> None:
        await self.client.session_update(session_id=self.id, update=update)


def _line(event: ev.Event) -> str | None:
    """Events that are said in a line of the answer: errors, notices, a command's message."""
    match event:
        case ev.ErrorEvent():
            return f"\nerror: {event.message}\n"
        case ev.Notice():
            return f"\nnote: {event.text}\n"
        case ev.CommandHandled() if event.message:
            return event.message.rstrip("\n") + "\n"
        case ev.ConversationCompacted():
            return f"\nnote: {compaction_note(event)}\n"
    return None


def _usage(event: ev.TurnFinished) -> Any:
    from acp.schema import Usage

    used = event.usage
    return Usage(
        input_tokens=used.input_tokens,
        output_tokens=used.output_tokens,
        total_tokens=used.input_tokens + used.output_tokens,
        thought_tokens=used.reasoning_tokens or None,
    )
