"""The one event stream out of the agent (DESIGN §2).

``Agent.run()`` yields these; the TUI and the headless runner are two consumers. A question to the
user is an event carrying a future (``ApprovalRequested.decision``, ``RoundLimitHit.proceed``): the
consumer resolves it, the loop awaits it. ``to_json()`` gives the stream-json line (futures left out).
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agent_tui.actions import UiAction
from agent_tui.approvals.types import Decision, Verdict
from agent_tui.plural import plural
from agent_tui.providers.base import Usage
from agent_tui.providers.base import WebSource as WebSource  # front ends read it from here
from agent_tui.text_safety import one_line
from agent_tui.tools.base import Prepared, ToolResult


def to_jsonable(value: Any) -> Any:
    """A value as plain JSON types (dataclasses, enums, futures left out as None; fields marked
    ``metadata={"event_json": False}``, such as an image's base64 data, left out)."""
    if isinstance(value, asyncio.Future):
        return None
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [f for f in dataclasses.fields(value) if f.metadata.get("event_json", True)]
        return {f.name: to_jsonable(getattr(value, f.name)) for f in fields}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # Enum
        return value.value
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


@dataclass(frozen=True)
class Event:
    """The base of the events the core emits; ``to_json`` gives the stream-json form."""

    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        body = {
            f.name: to_jsonable(getattr(self, f.name))
            for f in dataclasses.fields(self)
            if not isinstance(getattr(self, f.name), asyncio.Future)
        }
        return {"type": self.type, **body}


@dataclass(frozen=True)
class TurnStarted(Event):
    """A turn began with this prompt (and the participant, command and references it used)."""

    type: ClassVar[str] = "turn_started"
    text: str
    participant: str = ""
    command: str = ""
    references: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextDelta(Event):
    """A fragment of the assistant's answer as it streams."""

    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class ThinkingDelta(Event):
    """A fragment of the model's reasoning as it streams."""

    type: ClassVar[str] = "thinking_delta"
    text: str


@dataclass(frozen=True)
class RequestSent(Event):
    """A request went to the model; until ``ResponseStarted`` the user waits (a cold local model
    can take minutes). ``prompt_tokens`` is the estimate of what was sent."""

    type: ClassVar[str] = "request_sent"
    round: int
    prompt_tokens: int


@dataclass(frozen=True)
class ResponseStarted(Event):
    """The first part of the model's answer to the last ``RequestSent`` arrived."""

    type: ClassVar[str] = "response_started"
    round: int


@dataclass(frozen=True)
class AssistantMessage(Event):
    """A round's complete assistant text (after its deltas)."""

    type: ClassVar[str] = "assistant_message"
    text: str
    round: int


@dataclass(frozen=True)
class ToolCallStreaming(Event):
    """A tool call's arguments are still arriving: sent when it starts (``bytes_so_far`` 0), then
    at most ~10 times a second while it streams. ``path`` is the file it names, once the partial
    arguments show it ('' until then). ``ToolCallStarted`` follows with the same ``call_id``."""

    type: ClassVar[str] = "tool_call_streaming"
    call_id: str
    name: str
    bytes_so_far: int
    path: str = ""


@dataclass(frozen=True)
class ToolCallStarted(Event):
    """The model asked for a tool call; ``prepared`` is None when the input was invalid."""

    type: ClassVar[str] = "tool_call_started"
    call_id: str
    name: str
    input: dict[str, Any]
    prepared: Prepared | None = None
    kind: str = ""
    origin: str = ""  # "text": parsed from the model's text, not sent as a structured call


@dataclass(frozen=True)
class ApprovalRequested(Event):
    """A tool call needs the user's answer: the front resolves ``decision``."""

    type: ClassVar[str] = "approval_requested"
    call_id: str
    name: str
    input: dict[str, Any]
    prepared: Prepared
    verdict: Verdict
    # Offered narrowing of a grant: a command prefix, a URL origin, or None (whole tool).
    suggested_pattern: str | None = None
    decision: asyncio.Future[Decision] = field(default_factory=asyncio.Future, compare=False)
    # The narrow choice: the exact command (``/^…$/``), when it differs from suggested_pattern.
    exact_pattern: str | None = None


@dataclass(frozen=True)
class ToolCallDecided(Event):
    """How the call was approved or refused, for the tool card ("rule `git status`", "you, once")."""

    type: ClassVar[str] = "tool_call_decided"
    call_id: str
    allowed: bool
    step: str
    reason: str


@dataclass(frozen=True)
class ToolOutputDelta(Event):
    """Live output of a running tool (terminal tail); the final result still comes in ToolCallFinished."""

    type: ClassVar[str] = "tool_output"
    call_id: str
    text: str


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running tool's progress (an MCP server's progress notifications); shown on its card."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    progress: float
    total: float | None = None
    message: str = ""


@dataclass(frozen=True)
class ToolCallFinished(Event):
    """A tool call ended: its result, the past-tense line and how long it ran."""

    type: ClassVar[str] = "tool_call_finished"
    call_id: str
    name: str
    result: ToolResult
    past_tense_message: str = ""
    duration_s: float = 0.0


@dataclass(frozen=True)
class TodoItem:
    """One item of the model's todo list (the ``todo`` tool)."""

    content: str
    status: str  # "pending", "in_progress" or "completed"


@dataclass(frozen=True)
class TodoUpdated(Event):
    """The model sent its whole todo list again (``todo`` tool); an empty list clears it."""

    type: ClassVar[str] = "plan"  # as stream-json names it (Claude Code, ACP: a plan)
    items: tuple[TodoItem, ...]


@dataclass(frozen=True)
class WebSearched(Event):
    """The provider searched the web with its own tool (``[web] search = "provider"``): the query
    and the sources it found (titles may be empty), or the error it reported."""

    type: ClassVar[str] = "web_search"
    query: str
    sources: tuple[WebSource, ...] = ()
    error: str = ""

    @property
    def outcome(self) -> str:
        """``2 sources`` or ``failed: max_uses_exceeded`` (one visible line)."""
        from agent_tui.text_safety import one_line

        return (
            f"failed: {one_line(self.error)}" if self.error else plural(len(self.sources), "source")
        )


def source_line(number: int, source: WebSource) -> str:
    """``[1] Title <https://…>``: one visible line of web text (no title: the URL alone)."""
    title = one_line(source.title)
    return f"[{number}] {title + ' ' if title else ''}<{one_line(source.url)}>"


@dataclass(frozen=True)
class AnswerCited(Event):
    """The sources the answer just given cites (its text's web citations), each URL once."""

    type: ClassVar[str] = "citations"
    sources: tuple[WebSource, ...]


@dataclass(frozen=True)
class UsageUpdated(Event):
    """Tokens of a request and of the session so far, the cost and how full the context is."""

    type: ClassVar[str] = "usage"
    usage: Usage  # this request
    total: Usage  # the session so far
    cost_usd: float | None = None
    context_tokens: int = 0  # this request's prompt, as the server counted it (else estimated)
    context_window: int = 0  # the window it was budgeted against
    # The tokens a request may hold (the window less the reply's share): the meter's 100 %.
    # Automatic compaction starts at ``[agent] compact_at`` of it, pruning past it.
    context_limit: int = 0
    model: str = ""  # the model that answered ("": not said, in files written before it was)


@dataclass(frozen=True)
class Notice(Event):
    """Something the user should see that is not an error: pruned context, a warning, a banner."""

    type: ClassVar[str] = "notice"
    text: str
    level: str = "info"  # info | warning
    action: str = ""  # what the user can do about it: "continue" (an answer cut at max_tokens)


@dataclass(frozen=True)
class ContextPruned(Event):
    """Messages left out of or shrunk in a request so it fits the context window."""

    type: ClassVar[str] = "context_pruned"
    dropped: tuple[str, ...]
    shrunk: tuple[str, ...] = ()
    round: int = 0  # the request (round of the turn) that left them out; one event per request


@dataclass(frozen=True)
class RoundLimitHit(Event):
    """The round limit was reached: resolve ``proceed`` with True to run more rounds."""

    type: ClassVar[str] = "round_limit"
    rounds: int
    proceed: asyncio.Future[bool] = field(default_factory=asyncio.Future, compare=False)


@dataclass(frozen=True)
class CommandHandled(Event):
    """A slash command answered without the model: show ``message``, carry out ``action``."""

    type: ClassVar[str] = "command_handled"
    command: str
    message: str = ""
    action: UiAction | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        # The action by name, its fields in ``data`` (as when actions were strings).
        action = self.action
        data = {**(action.data() if action is not None else {}), **self.data}
        return {
            "type": self.type,
            "command": self.command,
            "message": self.message,
            "action": action.name if action is not None else None,
            "data": to_jsonable(data),
        }


@dataclass(frozen=True)
class PromptArg:
    """An argument a prompt command takes (an MCP prompt's ``arguments``)."""

    name: str
    description: str = ""
    required: bool = False


@dataclass(frozen=True)
class PromptArgumentsRequested(Event):
    """A command (an MCP prompt) lacks required arguments: resolve ``values`` with
    ``{name: value}`` to run it with them, or None to give up (the command's error is shown)."""

    type: ClassVar[str] = "prompt_arguments_requested"
    command: str
    missing: tuple[PromptArg, ...]
    values: asyncio.Future[dict[str, Any] | None] = field(
        default_factory=asyncio.Future, compare=False
    )


@dataclass(frozen=True)
class UserShellStarted(Event):
    """A ``!command`` the user typed started (the app draws its card)."""

    type: ClassVar[str] = "user_shell_started"
    command: str


@dataclass(frozen=True)
class UserShellFinished(Event):
    """The ``!command`` ended; its output goes with the next prompt."""

    type: ClassVar[str] = "user_shell_finished"
    command: str
    status: str
    output: str


@dataclass(frozen=True)
class ErrorEvent(Event):
    """The turn failed: the message, whether retrying may help, and the exit code for ``-p``."""

    type: ClassVar[str] = "error"
    message: str
    retryable: bool = False
    partial_text: str = ""
    exit_code: int = 1


@dataclass(frozen=True)
class TurnFinished(Event):
    """A turn ended: its final text, why it stopped, the rounds and the tokens used."""

    type: ClassVar[str] = "turn_finished"
    text: str  # the final assistant text of the turn
    stop_reason: str
    rounds: int
    usage: Usage
    cancelled: bool = False
    # The lines the turn's edits added and removed (agent/totals.py), kept across a resume.
    lines_added: int = 0
    lines_removed: int = 0


@dataclass(frozen=True)
class ConversationCompacted(Event):
    """Older turns were replaced by a model-written summary (``/compact``, or automatically near
    the context window). Only what is sent changed: the session file keeps every message."""

    type: ClassVar[str] = "conversation_compacted"
    summary: str
    replaced: int  # messages the summary stands for (the compaction's ``upto``)
    automatic: bool
    # The estimate before and after, in tokens: of the next request when automatic, of the
    # conversation alone for /compact (which has no request of its own to size).
    tokens_before: int
    tokens_after: int


@dataclass(frozen=True)
class CompactionStarted(Event):
    """The summary request of a compaction was sent: it may take as long as an answer.

    ``tokens`` is the estimate being compacted (as ``ConversationCompacted.tokens_before``);
    ``limit`` the tokens a request may hold (0 for ``/compact``, which is not sized by one).
    """

    type: ClassVar[str] = "compaction_started"
    automatic: bool
    tokens: int
    limit: int = 0


@dataclass(frozen=True)
class CheckpointRestored(Event):
    """/undo or /rewind put files back (``files``, workspace-relative) and/or truncated the
    conversation to ``conversation_to`` messages (None: the conversation was left alone).
    ``turns``: the turns whose changes were put back, by their prompt's message index (a resumed
    session marks them undone)."""

    type: ClassVar[str] = "checkpoint_restored"
    files: tuple[str, ...]
    conversation_to: int | None = None
    turns: tuple[int, ...] = ()


@dataclass(frozen=True)
class ConversationRewound(Event):
    """/rewind truncated the conversation to its first ``to`` messages."""

    type: ClassVar[str] = "conversation_rewound"
    to: int


@dataclass(frozen=True)
class SubagentEvent(Event):
    """An event of a sub-agent's run (``run_agent`` call ``call_id``, or ``@name`` with call id "").

    Consumers answer an inner ``ApprovalRequested`` exactly like a top-level one: the sub-run
    awaits its future.
    """

    type: ClassVar[str] = "subagent_event"
    agent: str
    call_id: str
    inner: Event

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "agent": self.agent,
            "call_id": self.call_id,
            "inner": self.inner.to_json(),
        }


@dataclass(frozen=True)
class SteeringDelivered(Event):
    """Messages the user sent while the turn ran went to the model after this round's tool
    results (``Agent.steer``)."""

    type: ClassVar[str] = "steering_delivered"
    texts: tuple[str, ...]
