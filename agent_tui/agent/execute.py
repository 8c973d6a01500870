"""One round's tool calls: validate -> prepare -> approve -> invoke (DESIGN §2, §5).

Every call ends with a ToolResult the model sees, whatever happens: an unknown tool, invalid input,
a denial, a ToolError or a bug in a tool. Approvals are asked one at a time in call order; approved
read-only calls then run concurrently and the rest one after another, in order. A result over
``[tools] max_result_chars`` reaches the model as its start and end, the whole saved in a file
``read_file`` can page through (``tools/result_files.py``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import events as ev
from agent_tui.agent.assemble import RawCall
from agent_tui.approvals.types import Decision, Verdict
from agent_tui.errors import AgentError, ApprovalRequired, ToolError
from agent_tui.hooks.agent_hooks import fire, notify
from agent_tui.hooks.decide import hook_verdict
from agent_tui.hooks.runner import HookOutcome
from agent_tui.schema_check import certainly_valid
from agent_tui.tools.base import (
    Manifest,
    Prepared,
    Tool,
    ToolContext,
    ToolResult,
    prepare_call,
)
from agent_tui.tools.result_files import cap_result, max_result_chars

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent, AgentDeps
    from agent_tui.sandbox.escalate import Escalation

logger = logging.getLogger(__name__)
Emit = Callable[[ev.Event], None]


@dataclass
class _Approved:
    """A tool call cleared to run: the tool, its manifest, its input and what it prepared."""

    call: RawCall
    tool: Tool
    manifest: Manifest
    input: dict[str, Any]
    prepared: Prepared


class _Validators:
    """jsonschema validators per tool, built once; jsonschema is imported on first use."""

    def __init__(self) -> None:
        # name -> (the schema it was built from, validator): an MCP tool re-listed with a new
        # schema under the same name gets a new validator, not the stale one.
        self._cache: dict[str, tuple[dict[str, Any], Any]] = {}

    def errors(self, manifest: Manifest, value: dict[str, Any]) -> list[str]:
        if certainly_valid(manifest.input_schema, value):
            return []  # most calls: no jsonschema import, no validator to build
        cached = self._cache.get(manifest.name)
        if cached is not None and cached[0] is manifest.input_schema:
            validator = cached[1]
        else:
            import jsonschema

            cls = jsonschema.validators.validator_for(manifest.input_schema)
            validator = cls(manifest.input_schema)
            self._cache[manifest.name] = (manifest.input_schema, validator)
        found = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
        return [
            f"{'.'.join(str(p) for p in e.absolute_path) or 'input'}: {e.message}" for e in found
        ]


VALIDATORS = _Validators()


def error_result(message: str) -> ToolResult:
    return ToolResult(content=message, is_error=True)


def denial_result(decision: Decision) -> ToolResult:
    text = "The user declined to run this tool call."
    if decision.reason:
        reason = decision.reason.strip()
        # The reason is the user's words: end it as a sentence before ours starts.
        text += f" Their reason: {reason}" + ("" if reason.endswith((".", "!", "?")) else ".")
    text += " Do not retry the same call; change your approach or ask the user."
    return error_result(text)


def repair_note(repaired: str) -> str:
    """What the model is told about a call it wrote as near-JSON that was repaired to be read."""
    return (
        f"Note: this tool call was not written exactly and was repaired to be read ({repaired}). "
        "Send tool calls as strict JSON: double-quoted strings; true, false and null."
    )


PAGED_READER = "read_file"  # what a saved big result is read with, a page at a time
MAX_NAMED_TOOLS = 40  # a refusal names at most this many of the offered tools


def unavailable_message(name: str, offered: tuple[str, ...]) -> str:
    """The result of a call to a tool the request did not offer.

    Only names the request itself offered are listed: nothing about tools the user disabled or the
    cap left out, and the model's own name is cut short (it may be anything).
    """
    shown = ", ".join(offered[:MAX_NAMED_TOOLS]) or "none"
    more = f" and {len(offered) - MAX_NAMED_TOOLS} more" if len(offered) > MAX_NAMED_TOOLS else ""
    # Whether the name is one tool_search could load is not said: a disabled tool stays unnamed.
    search = " Load others with tool_search first." if "tool_search" in offered else ""
    return (
        f"There is no tool named {name[:64]!r} available in this request; it was not run. "
        f"Call only the tools offered with this request: {shown}{more}.{search}"
    )


class CallProcessor:
    """Runs one round's tool calls, reporting every step as events through ``emit``.

    Args:
        deps: the agent's tools, approvals, session and the rest.
        offered: the names of the tools the round's request offered, exactly as sent: a call to
            any other (one deferred behind tool_search and not loaded, one disabled, one outside the participant's
            or the sub-agent's set, an invented name) is refused without running.
        emit: where the events go.
        agent: the running Agent, for run_agent (None: no sub-agents).
    """

    def __init__(
        self, deps: AgentDeps, offered: Iterable[str], emit: Emit, agent: Agent | None = None
    ) -> None:
        self.deps = deps
        self.agent = agent
        self.offered = tuple(offered)
        self.emit = emit
        self.results: dict[str, ToolResult] = {}
        self.edited: dict[str, dict[str, Any]] = {}  # call id -> the input the user edited

    def _unavailable(self, name: str) -> str:
        """The refusal of a call to a tool not offered; one waiting behind tool_search is loaded
        for the next request instead of searched for (the model knew its name)."""
        from agent_tui.toolsearch.session import load_named

        if load_named(self.deps.session, name):
            return (
                f"{name} was not offered with this request and did not run; it is loaded now: "
                "call it again."
            )
        return unavailable_message(name, self.offered)

    def _context(self, call_id: str) -> ToolContext:
        def on_output(text: str) -> None:
            self.emit(ev.ToolOutputDelta(call_id, text))

        def on_progress(progress: float, total: float | None, message: str) -> None:
            self.emit(ev.ToolProgress(call_id, progress, total, message))

        return ToolContext(
            self.deps.workspace,
            self.deps.session,
            self.deps.config,
            on_output=on_output,
            on_progress=on_progress,
            agent=self.agent,
            call_id=call_id,
            on_event=self.emit,
            sandbox=self.deps.sandbox,
        )

    def _finish(self, call: RawCall, result: ToolResult, past: str = "", t0: float = 0.0) -> None:
        if call.name != PAGED_READER or result.is_error:  # read_file pages on its own
            result = cap_result(
                result, self.deps.workspace, call.name, max_result_chars(self.deps.config)
            )
        if call.repaired:  # after the cap: the note is never cut off
            result = replace(result, content=f"{result.content}\n\n{repair_note(call.repaired)}")
        self.results[call.id] = result
        duration = time.monotonic() - t0 if t0 else 0.0
        self.emit(ev.ToolCallFinished(call.id, call.name, result, past, duration))

    def _offered(self, name: str) -> bool:
        tools = self.deps.tools
        # Still registered and enabled too: a server may have dropped it, /tools disabled it.
        return name in self.offered and name in tools and name not in tools.disabled

    async def _check(self, call: RawCall, value: dict[str, Any]) -> tuple[Tool, Prepared]:
        """Validate and prepare; raises ToolError with the message for the model."""
        manifest = self.deps.tools.manifest(call.name)
        problems = VALIDATORS.errors(manifest, value)
        if problems:
            raise ToolError(
                "Invalid input for "
                + call.name
                + ": "
                + "; ".join(problems[:5])
                + ". Fix the arguments to match the tool's input schema and call it again."
            )
        tool = self.deps.tools.get(call.name)
        return tool, await prepare_call(tool, value, self._context(call.id))

    async def _approve(self, call: RawCall) -> _Approved | None:
        """Whether ``call`` may run (None: it got its result already): checked and prepared,
        decided by the policy and the PreToolUse hooks, and asked about when neither settles it."""
        checked = await self._started(call)
        if checked is None:
            return None
        verdict = self.deps.approvals.decide(checked.manifest, checked.input, checked.prepared)
        hooked = await self._pre_tool_hooks(call, checked.input)
        if hooked.blocked or hooked.permission is not None:
            verdict, refusal = hook_verdict(hooked, verdict)
            if refusal is not None:
                self.emit(ev.ToolCallDecided(call.id, False, verdict.step, verdict.reason))
                self._finish(call, error_result(refusal))
                return None
        if verdict.action == "allow":
            self.emit(ev.ToolCallDecided(call.id, True, verdict.step, verdict.reason))
            return checked
        if verdict.action == "deny":
            self.emit(ev.ToolCallDecided(call.id, False, verdict.step, verdict.reason))
            advice = f". {verdict.advice}" if verdict.advice else ""
            self._finish(call, error_result(f"This call is not allowed: {verdict.reason}{advice}"))
            return None
        return await self._ask(checked, verdict)

    async def _started(self, call: RawCall) -> _Approved | None:
        """The call's card starts; a call that cannot run (arguments not JSON, a tool not
        offered, input the tool rejects) gets its error result and None."""
        if call.input is None:
            self.emit(ev.ToolCallStarted(call.id, call.name, {}, None, origin=call.origin))
            self._finish(
                call,
                error_result(
                    f"Tool call {call.name} failed: {call.error}. "
                    "Send the arguments as one JSON object."
                ),
            )
            return None
        if not self._offered(call.name):
            self.emit(ev.ToolCallStarted(call.id, call.name, call.input, None, origin=call.origin))
            self._finish(call, error_result(self._unavailable(call.name)))
            return None
        manifest = self.deps.tools.manifest(call.name)
        try:
            tool, prepared = await self._check(call, call.input)
        except ToolError as exc:
            self.emit(
                ev.ToolCallStarted(call.id, call.name, call.input, None, manifest.kind, call.origin)
            )
            self._finish(call, error_result(str(exc)))
            return None
        self.emit(
            ev.ToolCallStarted(call.id, call.name, call.input, prepared, manifest.kind, call.origin)
        )
        return _Approved(call, tool, manifest, call.input, prepared)

    async def _ask(self, checked: _Approved, verdict: Verdict) -> _Approved | None:
        """Ask the user (an ApprovalRequested with a Future); an edited input is checked again."""
        call, manifest, approvals = checked.call, checked.manifest, self.deps.approvals
        tool, value, prepared = checked.tool, checked.input, checked.prepared
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        notify(self.deps, f"agent-tui needs your permission to use {call.name}")
        self.emit(
            ev.ApprovalRequested(
                call.id,
                call.name,
                value,
                prepared,
                verdict,
                approvals.suggest_pattern(manifest, value),
                future,
                exact_pattern=approvals.suggest_exact_pattern(manifest, value),
            )
        )
        decision = await future  # an AgentError here (e.g. ApprovalRequired) ends the turn
        if decision.allow and decision.edited_input is not None:
            value = decision.edited_input
            try:
                tool, prepared = await self._check(call, value)
            except ToolError as exc:
                self.emit(ev.ToolCallDecided(call.id, False, "edited", "edited input is invalid"))
                self._finish(call, error_result(f"The user's edited input was rejected: {exc}"))
                return None
        if value is not call.input:
            self.edited[call.id] = value
        approvals.record(manifest, value, decision)
        self.emit(ev.ToolCallDecided(call.id, decision.allow, "user", decision.describe()))
        if not decision.allow:
            self._finish(call, denial_result(decision))
            return None
        return _Approved(call, tool, manifest, value, prepared)

    async def _run_tool(self, item: _Approved, escalation: Escalation | None = None) -> ToolResult:
        context = self._context(item.call.id)
        context.sandbox_exception = escalation or self._outside_grant(item)
        files = self.deps.checkpoints
        if files is None:
            return await item.tool.invoke(item.input, context)
        # Snapshot what the call may change first (/undo, /rewind).
        async with files.around_call(
            item.manifest, item.input, item.prepared, self.deps.session.files
        ):
            return await item.tool.invoke(item.input, context)

    def _outside_grant(self, item: _Approved) -> Escalation | None:
        """An escalation to run outside the sandbox when the user granted it for this command."""
        sandbox = self.deps.sandbox
        if sandbox is None or not sandbox.active or item.call.name != "run_in_terminal":
            return None
        from agent_tui.sandbox.escalate import Escalation
        from agent_tui.sandbox.runtime import OUTSIDE_GRANT

        granted = self.deps.approvals.granted_as(OUTSIDE_GRANT, item.manifest, item.input)
        return Escalation(outside=True) if granted else None

    async def _escalate(self, item: _Approved, result: ToolResult) -> ToolResult:
        """Ask about what the sandbox stopped; run again if the user lets it through."""
        from agent_tui.sandbox.escalate import escalate

        approvals = self.deps.approvals
        notify(self.deps, f"agent-tui needs your permission: the sandbox stopped {item.call.name}")
        return await escalate(
            result,
            call_id=item.call.id,
            name=item.call.name,
            value=item.input,
            emit=self.emit,
            grants=approvals.grants,
            command_pattern=approvals.suggest_exact_pattern(item.manifest, item.input),
            run_again=lambda escalation: self._run_tool(item, escalation),
        )

    async def _invoke(self, item: _Approved) -> None:
        t0 = time.monotonic()
        lsp = self.deps.lsp if item.manifest.kind == "edit" else None
        before = lsp.before_edit(item.prepared.paths) if lsp is not None else {}
        try:
            result = await self._run_tool(item)
            if result.data.get("sandbox_blocks"):
                result = await self._escalate(item, result)
        except ToolError as exc:
            result = error_result(str(exc))
        except ApprovalRequired:
            raise  # a sub-agent's call needed approval under --on-approval fail: the run stops
        except AgentError as exc:
            result = error_result(f"{item.call.name} failed: {exc}")
        except Exception as exc:  # a bug in a tool must not end the turn; the model is told
            logger.exception("tool %s crashed", item.call.name)
            result = error_result(
                f"{item.call.name} crashed with an internal error: {type(exc).__name__}: {exc}"
            )
        if not result.is_error and item.prepared.paths:
            result = self._with_folder_instructions(result, item.prepared)
        if lsp is not None and not result.is_error:
            result = await self._with_diagnostics(result, item.prepared, before)
        result = await self._post_tool_hooks(item, result)
        self._finish(item.call, result, item.prepared.past_tense_message, t0)

    def _with_folder_instructions(self, result: ToolResult, prepared: Prepared) -> ToolResult:
        """``result`` with the subfolder AGENTS.md files its paths fall under, not yet shown."""
        from agent_tui.agent.folder_instructions import SHOWN_KEY, folder_instructions

        shown: set[str] = self.deps.session.extras.setdefault(SHOWN_KEY, set())
        extra = folder_instructions(self.deps.workspace, self.deps.config, prepared.paths, shown)
        if not extra:
            return result
        return replace(result, content=f"{result.content}\n\n{extra}")

    async def _with_diagnostics(
        self, result: ToolResult, prepared: Prepared, before: dict[Path, str | None]
    ) -> ToolResult:
        """``result`` with the errors and warnings the edit added, as its language server says
        (``lsp/``); a server skipped for the session is told once, as a notice."""
        lsp = self.deps.lsp
        assert lsp is not None
        report, count = await lsp.after_edit(prepared.paths, before)
        for notice in lsp.take_notices():
            self.emit(ev.Notice(notice, "warning"))
        if not report:
            return result
        data = {**result.data, "new_problems": count}  # the card's header says how many
        return replace(result, content=f"{result.content}\n\n{report}", data=data)

    async def _pre_tool_hooks(self, call: RawCall, value: dict[str, Any]) -> HookOutcome:
        outcome = await fire(
            self.deps,
            "PreToolUse",
            {"tool_name": call.name, "tool_input": value, "tool_use_id": call.id},
            tool=call.name,
        )
        for error in outcome.errors:
            self.emit(ev.Notice(error, "warning"))
        return outcome

    async def _post_tool_hooks(self, item: _Approved, result: ToolResult) -> ToolResult:
        """PostToolUse: exit 2 / ``decision: "block"`` and ``additionalContext`` reach the model."""
        response = {
            "content": result.content,
            "is_error": result.is_error,
            "success": not result.is_error,
        }
        outcome = await fire(
            self.deps,
            "PostToolUse",
            {
                "tool_name": item.call.name,
                "tool_input": item.input,
                "tool_response": response,
                "tool_use_id": item.call.id,
            },
            tool=item.call.name,
        )
        for error in outcome.errors:
            self.emit(ev.Notice(error, "warning"))
        notes = (
            [f"PostToolUse hook: {outcome.reason}"] if outcome.blocked else []
        ) + outcome.context
        if not notes:
            return result
        return dataclasses.replace(result, content="\n\n".join([result.content, *notes]))

    async def run(self, calls: list[RawCall]) -> None:
        """Process every call; ``results`` and ``edited`` hold what happened."""
        approved: list[_Approved] = []
        for call in calls:
            item = await self._approve(call)
            if item is not None:
                approved.append(item)
        readers = [a for a in approved if a.manifest.read_only]
        writers = [a for a in approved if not a.manifest.read_only]
        await asyncio.gather(*(self._invoke(a) for a in readers))
        for item in writers:
            await self._invoke(item)
