"""``agent-tui -p``: run one turn for scripts (DESIGN §8).

Output formats: ``text`` streams the answer to stdout (tool activity goes to stderr); ``json``
prints one result object at the end; ``stream-json`` prints every event as a JSON line, then the
result. Exit codes: 0 done, 1 runtime error, 2 usage/config, 3 approval needed under
``--on-approval fail``, 4 round limit or ``max_cost``, 130 interrupted.

Text from the model, tools and servers is written with its control characters made visible
(``text_safety``), and JSON with DEL, C1 and format characters escaped, so neither can drive the
terminal that a script's output ends up on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import sys
from dataclasses import dataclass, field
from typing import IO, Any

from agent_tui import events as ev
from agent_tui.agent.call_progress import shown_name
from agent_tui.agent.compaction.run import compacting_text, compaction_note
from agent_tui.agent.front import (
    UserInput,
    headless_warnings,
    input_schema,
    session_id,
    submit,
)
from agent_tui.agent.loop import Agent
from agent_tui.approvals.protected import PROTECTED_NOTE
from agent_tui.conversation import ImageBlock
from agent_tui.errors import ApprovalRequired
from agent_tui.headless_wait import WaitLine
from agent_tui.text_safety import escape_json, one_line, visible


@dataclass
class HeadlessOptions:
    """The settings of a ``-p`` run: the output format, how approvals are answered, stdin and
    images."""

    output_format: str = "text"  # text | json | stream-json
    on_approval: str | None = None  # ask | deny | fail; None = ask on a TTY, deny otherwise
    stdin_text: str | None = None
    images: tuple[ImageBlock, ...] = ()  # --image files, sent with the prompt
    # Set by the signal handler before it cancels the run: (status, exit code) for the result.
    stopped_by: tuple[str, int] | None = None


@dataclass
class _Summary:
    """What a ``-p`` run gathered from the events for its final output and exit code."""

    text: str = ""
    exit_code: int = 0
    errors: list[str] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    pruned: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    rounds: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    cost_usd: float | None = None
    status: str = ""  # how the run ended when it did not end by itself: interrupted | terminated
    streamed: list[str] = field(default_factory=list)  # the answer so far (an interrupted run's)
    # The provider's own web searches and the sources the answers cite (json output only).
    web_searches: list[dict[str, Any]] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)


def compose_prompt(prompt: str, stdin_text: str | None) -> str:
    """Piped stdin is added as context after the request."""
    if not stdin_text or not stdin_text.strip():
        return prompt
    return f"{prompt}\n\n<stdin>\n{stdin_text.rstrip()}\n</stdin>"


async def _answer_approval(agent: Agent, event: ev.ApprovalRequested, policy: str | None) -> None:
    """Answer from --on-approval (default ask, which asks only when stdin and stdout are TTYs)."""
    from agent_tui.headless_prompt import resolve_headless

    schema = input_schema(agent, event.name)
    try:
        event.decision.set_result(
            await resolve_headless(policy or "ask", event, input_schema=schema)
        )
    except ApprovalRequired as exc:
        event.decision.set_exception(exc)


class _Printer:
    def __init__(self, fmt: str, out: IO[str], err: IO[str]) -> None:
        self.fmt, self.out, self.err = fmt, out, err
        self._line_open = False
        self._held_cr = ""  # a fragment's last CR, kept until we see whether an LF follows
        self._announced: set[str] = set()  # streaming calls already given their start line
        # call id -> the verdict that named a protected path, shown on the call's activity line
        self._protected: dict[str, str] = {}
        self._from_text: set[str] = set()  # calls the model wrote as text (text_tool_calls)
        self.wait = WaitLine(err)  # "waiting for the model …" on a terminal
        self._todo: tuple[ev.TodoItem, ...] = ()  # the list last printed

    def close(self) -> None:
        """End a streamed answer that did not end its own line, and flush."""
        self.wait.stop()
        self._release_cr()
        if self._line_open and self.fmt == "text":
            self.out.write("\n")
        self.out.flush()

    def _release_cr(self) -> None:
        if self._held_cr:
            self.out.write(visible(self._held_cr))
            self._held_cr = ""

    def event(self, event: ev.Event) -> None:
        self.wait.stop()  # anything at all ends the wait (and its line goes first)
        if isinstance(event, ev.RequestSent):
            self.wait.start(event.prompt_tokens)
        if self.fmt == "stream-json":
            self.out.write(json_line(event.to_json()))
            self.out.flush()
        elif self.fmt == "text":
            self._text(event)

    def _text(self, event: ev.Event) -> None:
        match event:
            case ev.TextDelta():
                self._text_delta(event)
            case ev.SubagentEvent():
                self._subagent(event)
            case ev.AssistantMessage() if self._line_open or self._held_cr:
                self._release_cr()
                self.out.write("\n")
                self._line_open = False
            case ev.ToolCallStreaming():
                # One line as a call starts streaming (a large file can take a while), not per
                # update.
                if event.call_id not in self._announced:
                    self._announced.add(event.call_id)
                    self.err.write(f"… {shown_name(event.name)}\n")
            case ev.ToolCallStarted():
                self._announced.discard(event.call_id)  # ids may come again in a later round
                if event.origin == "text":
                    self._from_text.add(event.call_id)
            case ev.ApprovalRequested() | ev.ToolCallDecided():
                reason = (
                    event.verdict.reason
                    if isinstance(event, ev.ApprovalRequested)
                    else event.reason
                )
                if PROTECTED_NOTE in reason:
                    self._protected[event.call_id] = reason
            case ev.ToolCallFinished():
                self._finished(event)
            case ev.TodoUpdated() if event.items != self._todo:
                self._todo = event.items
                self.err.write(todo_lines(event.items))
            case ev.WebSearched() | ev.AnswerCited():
                self.err.write(web_search_lines(event))
            case ev.ErrorEvent():
                self.err.write(f"error: {visible(event.message)}\n")
            case ev.CommandHandled() if event.message:
                self.out.write(visible(event.message.rstrip("\n")) + "\n")
            case ev.Notice():
                self.err.write(f"note: {visible(event.text)}\n")
            case ev.ConversationCompacted():
                self.err.write(f"note: {compaction_note(event)}\n")
            case ev.CompactionStarted():
                self.err.write(f"note: {compacting_text(event)}\n")
            case ev.ContextPruned():
                # Every request that leaves something out says so, not only a turn's first.
                left_out = ", ".join(event.dropped + event.shrunk)
                self.err.write(f"note: pruned (request {event.round}): {visible(left_out)}\n")

    def _text_delta(self, event: ev.TextDelta) -> None:
        # CRLF is a newline, a lone CR is shown (it would overwrite the line): a CR that ends
        # a fragment waits for the next one to tell which.
        text = self._held_cr + event.text
        self._held_cr = "\r" if text.endswith("\r") else ""
        self.out.write(visible(text[:-1] if self._held_cr else text))
        self.out.flush()
        self._line_open = not event.text.endswith("\n")

    def _subagent(self, event: ev.SubagentEvent) -> None:
        """A sub-agent's tool activity goes to stderr, marked; its text is its tool result."""
        inner = event.inner
        if isinstance(inner, ev.ToolCallFinished):
            mark = "✗" if inner.result.is_error else "●"
            label = one_line(inner.past_tense_message or inner.name)
            self.err.write(f"  {mark} [{event.agent}] {label}\n")
        elif isinstance(inner, ev.ErrorEvent):
            self.err.write(f"  error [{event.agent}]: {visible(inner.message)}\n")

    def _finished(self, event: ev.ToolCallFinished) -> None:
        mark = "✗" if event.result.is_error else "●"
        # One line per call: a newline or CR in the label or output must not forge another.
        label = one_line(event.past_tense_message or event.name)
        detail = (
            f": {one_line(event.result.content.splitlines()[0][:200])}"
            if event.result.is_error and event.result.content
            else ""
        )
        protected = self._protected.pop(event.call_id, "")
        note = f" [{protected}]" if protected else ""
        if event.call_id in self._from_text:
            self._from_text.discard(event.call_id)
            note += " (parsed from text)"
        self.err.write(f"{mark} {label}{detail}{note}\n")


def web_search_lines(event: ev.WebSearched | ev.AnswerCited) -> str:
    """The provider's search (its query and sources) or the answer's sources, for stderr."""
    if isinstance(event, ev.WebSearched):
        head = f"● Searched the web: {one_line(event.query)} ({event.outcome})\n"
        return head + "".join(f"  {one_line(s.url)}\n" for s in event.sources)
    lines = [f"  {ev.source_line(n, s)}\n" for n, s in enumerate(event.sources, 1)]
    return "sources:\n" + "".join(lines)


TODO_MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


def todo_lines(items: tuple[ev.TodoItem, ...]) -> str:
    """The todo list for stderr: a heading, then one line per item (its text on one line)."""
    if not items:
        return "todo: (cleared)\n"
    done = sum(item.status == "completed" for item in items)
    lines = [f"todo: {done} of {len(items)} done"]
    lines += [f"  {TODO_MARKS.get(i.status, '[?]')} {one_line(i.content)}" for i in items]
    return "\n".join(lines) + "\n"


def _pruned_kind(entry: str) -> str:
    """``"12 tool outputs of this turn"`` -> ``"tool outputs of this turn"`` (counts grow)."""
    head, _, rest = entry.partition(" ")
    return re.sub(r"\b(turn|output)s\b", r"\1", rest) if head.isdigit() else entry


def _add_pruned(pruned: list[str], entries: tuple[str, ...]) -> None:
    """Accumulate what every request of the run left out: each thing once, counts at their most.

    Later rounds re-prune what earlier ones did ("3 tool outputs" then "5 tool outputs of this
    turn"), so an entry of the same kind replaces a smaller count instead of piling up.
    """
    for entry in entries:
        kind = _pruned_kind(entry)
        same = [n for n, old in enumerate(pruned) if _pruned_kind(old) == kind]
        if not same:
            pruned.append(entry)
        elif kind != entry and int(entry.split()[0]) > int(pruned[same[0]].split()[0]):
            pruned[same[0]] = entry


def _collect(summary: _Summary, event: ev.Event) -> None:
    if isinstance(event, ev.TextDelta):
        summary.streamed.append(event.text)
    elif isinstance(event, ev.ToolCallFinished):
        summary.tool_calls.append(
            {"id": event.call_id, "name": event.name, "is_error": event.result.is_error}
        )
    elif isinstance(event, ev.ErrorEvent):
        summary.errors.append(event.message)
        summary.exit_code = event.exit_code
        if event.partial_text and not summary.text:
            summary.text = event.partial_text
    elif isinstance(event, ev.ContextPruned):
        _add_pruned(summary.pruned, event.dropped + event.shrunk)
    elif isinstance(event, ev.WebSearched):
        summary.web_searches.append(event.to_json())
    elif isinstance(event, ev.AnswerCited):
        summary.sources += ev.to_jsonable(event.sources)
    elif isinstance(event, ev.Notice):
        summary.notices.append(event.text)
    elif isinstance(event, ev.ConversationCompacted):
        summary.notices.append(compaction_note(event))
    elif isinstance(event, ev.CommandHandled):
        summary.text = event.message
    elif isinstance(event, ev.TurnFinished):
        summary.text = event.text or summary.text
        summary.rounds = event.rounds
    elif isinstance(event, ev.UsageUpdated):
        summary.usage = {**ev.to_jsonable(event.total), **context_usage(event)}
        summary.cost_usd = event.cost_usd


async def run_turn(
    agent: Agent, prompt: str, opts: HeadlessOptions, out: IO[str], err: IO[str]
) -> int:
    printer = _Printer(opts.output_format, out, err)
    summary = _Summary()
    # The session is written as the turn runs (the Agent's recorder); json gives its id so a
    # script can chain runs with --resume ID.
    session = session_id(agent)
    try:
        await _drive(agent, prompt, opts, printer, summary)
    except asyncio.CancelledError:
        # Ctrl+C, or a SIGTERM from `timeout` or a supervisor: the script still gets the result
        # object, with what is known and how it ended (then the cancellation goes on).
        summary.status, summary.exit_code = opts.stopped_by or ("interrupted", 130)
        summary.text = summary.text or "".join(summary.streamed)
        _write_result(out, opts, summary, agent, session)
        printer.close()
        raise
    _write_result(out, opts, summary, agent, session)
    printer.close()
    return summary.exit_code


async def _drive(
    agent: Agent, prompt: str, opts: HeadlessOptions, printer: _Printer, summary: _Summary
) -> None:
    """The turn's events, printed and summed up; questions answered by the headless policy."""
    request = UserInput(compose_prompt(prompt, opts.stdin_text), opts.images)
    async for event in submit(agent, request):  # the front door, as the app's
        # A sub-agent's question is answered like the agent's own (the sub-run awaits it).
        asked = event.inner if isinstance(event, ev.SubagentEvent) else event
        if isinstance(asked, ev.ApprovalRequested):
            printer.event(event)
            await _answer_approval(agent, asked, opts.on_approval)
            continue
        if isinstance(event, ev.SubagentEvent):
            printer.event(event)
            continue
        if isinstance(asked, ev.RoundLimitHit):
            printer.event(event)
            asked.proceed.set_result(False)  # headless never continues past the limit
            continue
        printer.event(event)
        _collect(summary, event)


def _write_result(
    out: IO[str], opts: HeadlessOptions, summary: _Summary, agent: Agent, session: str | None
) -> None:
    if opts.output_format not in ("json", "stream-json"):
        return
    status = summary.status or ("completed" if summary.exit_code == 0 else "failed")
    result = {
        "type": "result",
        "result": summary.text,
        "is_error": summary.exit_code != 0,
        "exit_code": summary.exit_code,
        "status": status,
        "errors": summary.errors,
        "rounds": summary.rounds,
        "tool_calls": summary.tool_calls,
        "pruned": summary.pruned,
        "notices": summary.notices,
        **_web(summary),
        "usage": summary.usage,
        "cost_usd": summary.cost_usd,
        "model": agent.model.name,
        "session_id": session,
    }
    out.write(json_line(result))
    out.flush()


def _web(summary: _Summary) -> dict[str, Any]:
    """The web search keys of the json result, only when the provider searched."""
    if not summary.web_searches and not summary.sources:
        return {}
    searches = [{k: v for k, v in s.items() if k != "type"} for s in summary.web_searches]
    return {"web_searches": searches, "sources": summary.sources}


def context_usage(event: ev.UsageUpdated) -> dict[str, Any]:
    """How full the last request's context was: ``{"context_tokens", "context_window",
    "context_limit", "context_percent"}`` (the status bar's ``context 86% of 4k``: of the limit, what
    a request may hold), or nothing when unknown."""
    if not event.context_window:
        return {}
    limit = event.context_limit or event.context_window
    return {
        "context_tokens": event.context_tokens,
        "context_window": event.context_window,
        "context_limit": limit,
        "context_percent": round(100 * event.context_tokens / limit),
    }


def json_line(value: dict[str, Any]) -> str:
    """One JSON object as a line, with nothing in it a terminal would act on."""
    return escape_json(json.dumps(value, ensure_ascii=False)) + "\n"


def run_headless(agent: Agent, prompt: str, opts: HeadlessOptions) -> int:
    agent.interactive = False
    warnings, endpoint, skipped = headless_warnings(agent)
    for warning in warnings:  # --yolo, untrusted settings ignored
        sys.stderr.write(f"warning: {visible(warning)}\n")
    for note in endpoint:  # requests leave for a non-default server
        sys.stderr.write(f"note: {note}\n")
    _print_state_notices()  # state files moved aside while starting
    for notice in skipped:  # prompt files, [[participants]] skipped
        sys.stderr.write(f"note: {visible(notice)}\n")

    async def main() -> int:
        _stop_on_signals(opts)
        try:
            agent.start()
            for notice in await agent.wait_ready():  # the model must be offered MCP tools
                sys.stderr.write(f"note: {visible(notice)}\n")
            return await run_turn(agent, prompt, opts, sys.stdout, sys.stderr)
        finally:
            await agent.aclose()

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except asyncio.CancelledError:  # SIGTERM or SIGHUP (_stop_on_signals)
        _print_state_notices()
        sys.stderr.write("terminated\n")
        sys.stderr.flush()
        from agent_tui.subreaper import die_cleanly

        # The result is printed; now end by that signal, as a parent (a shell: 143, 129) expects.
        die_cleanly((opts.stopped_by or ("", 128 + signal.SIGTERM))[1] - 128)
        return 128 + signal.SIGTERM  # not reached
    finally:
        _print_state_notices()  # and during the turn (approvals are read as calls are decided)


def _stop_on_signals(opts: HeadlessOptions) -> None:
    """SIGTERM (``timeout``, a supervisor) and SIGHUP end the run as Ctrl+C does: cancelled, so the
    turn stops cleanly, its commands are ended and the result object is still printed; then the
    process ends by that signal (a shell sees 143, 129; the result's exit_code says the same)."""
    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    if task is None:
        return

    def stop(signum: int) -> None:
        if opts.stopped_by is None:
            opts.stopped_by = ("terminated", 128 + signum)
            task.cancel()

    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, stop, signum)


def _print_state_notices() -> None:
    from agent_tui.state_files import take_notices

    for notice in take_notices():
        sys.stderr.write(f"note: {notice}\n")
