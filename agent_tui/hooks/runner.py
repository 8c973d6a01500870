"""Run the hooks of one event in parallel and read what they said (Claude Code's protocol).

Each hook gets the event as JSON on stdin and runs through the shell in the workspace, with the
terminal's environment policy (no API keys) plus ``CLAUDE_PROJECT_DIR``. Exit 0 goes on (stdout is
context for UserPromptSubmit and SessionStart; JSON on stdout is read), exit 2 blocks with stderr,
any other exit or a timeout is a non-blocking error the user is told about.
"""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.child_pipes import feed, kill_group, read_capped
from agent_tui.hooks.names import claude_input, claude_name, names_for_matching
from agent_tui.hooks.sources import HookSpec
from agent_tui.subreaper import spawn_own
from agent_tui.text_safety import visible

_CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")


@dataclass
class HookOutcome:
    """What the hooks of one event decided, together.

    ``blocked`` with ``reason``: exit 2 (its stderr) or ``decision: "block"``. ``permission``:
    PreToolUse's strongest ``permissionDecision`` (deny > ask > allow), by ``decider`` (the hook
    that gave it). ``context``: text to add for the model. ``stop``: ``continue: false``.
    """

    blocked: bool = False
    reason: str = ""
    decider: HookSpec | None = None
    permission: str | None = None
    permission_reason: str = ""
    context: list[str] = field(default_factory=list)
    stop: str | None = None
    errors: list[str] = field(default_factory=list)


def matches(hook: HookSpec, tool: str | None) -> bool:
    """Whether ``hook``'s matcher takes ``tool`` (our name or Claude Code's; a regex)."""
    pattern = hook.matcher.strip()
    if tool is None or pattern in ("", "*"):
        return True
    names = names_for_matching(tool)
    try:
        return any(re.fullmatch(pattern, name) for name in names)
    except re.error:
        return pattern in names


def describe(hook: HookSpec) -> str:
    """``hook `cmd` in .claude/settings.json`` for the approval's deciding step."""
    command = visible(hook.command, keep_newlines=False)
    command = command if len(command) <= 60 else command[:57] + "..."
    return f"hook `{command}` in {hook.source}"


def _payload(hook: HookSpec, base: dict[str, Any], workspace: Path) -> bytes:
    data = dict(base)
    tool = data.get("tool_name")
    if hook.claude and isinstance(tool, str):
        data["tool_name"] = claude_name(tool)
        if isinstance(data.get("tool_input"), dict):
            data["tool_input"] = claude_input(tool, data["tool_input"], workspace)
    return json.dumps(data).encode()


async def _run_one(
    hook: HookSpec, stdin: bytes, cwd: Path, env: dict[str, str]
) -> tuple[int | None, str, str]:
    """Exit code (None: timed out and killed), stdout, stderr."""
    proc = await spawn_own(
        asyncio.create_subprocess_shell,
        hook.command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,  # its own process group: a timeout kills what it started too
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        out, err, _ = await asyncio.wait_for(
            asyncio.gather(
                read_capped(proc.stdout), read_capped(proc.stderr), feed(proc.stdin, stdin)
            ),
            hook.timeout_s,
        )
        await asyncio.wait_for(proc.wait(), hook.timeout_s)
    except TimeoutError:
        kill_group(proc.pid)
        await proc.wait()
        return None, "", ""
    except asyncio.CancelledError:  # the turn was cancelled: the hook goes with it
        kill_group(proc.pid)
        raise
    return proc.returncode, out, err


def _read(
    outcome: HookOutcome, hook: HookSpec, event: str, code: int | None, out: str, err: str
) -> None:
    if code is None:
        outcome.errors.append(f"{describe(hook)} timed out after {hook.timeout_s:g} s")
        return
    if code == 2:
        if not outcome.blocked:
            outcome.blocked, outcome.decider = True, hook
            outcome.reason = err.strip() or f"blocked by {describe(hook)}"
        return
    if code != 0:
        detail = visible(err.strip()[:300], keep_newlines=False)
        outcome.errors.append(f"{describe(hook)} failed (exit {code}): {detail}")
        return
    data: Any = None
    if out.lstrip().startswith("{"):
        try:
            data = json.loads(out)
        except json.JSONDecodeError:
            data = None
    if not isinstance(data, dict):
        if event in _CONTEXT_EVENTS and out.strip():
            outcome.context.append(out.strip())
        return
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    extra = specific.get("additionalContext")
    if isinstance(extra, str) and extra.strip():
        outcome.context.append(extra.strip())
    if data.get("continue") is False:
        outcome.stop = str(data.get("stopReason") or f"stopped by {describe(hook)}")
    decision = data.get("decision")
    reason = str(data.get("reason") or "")
    permission = specific.get("permissionDecision")
    if event == "PreToolUse" and permission is None and decision in ("approve", "block"):
        permission = "allow" if decision == "approve" else "deny"  # the older fields
        specific = {**specific, "permissionDecisionReason": reason}
    if event == "PreToolUse" and permission in ("allow", "deny", "ask"):
        rank = {"allow": 0, "ask": 1, "deny": 2}
        if outcome.permission is None or rank[permission] > rank[outcome.permission]:
            outcome.permission, outcome.decider = permission, hook
            outcome.permission_reason = str(specific.get("permissionDecisionReason") or "")
    elif decision == "block" and not outcome.blocked:
        outcome.blocked, outcome.decider = True, hook
        outcome.reason = reason or f"blocked by {describe(hook)}"


async def run_hooks(
    hooks: list[HookSpec],
    event: str,
    payload: dict[str, Any],
    *,
    workspace: Path,
    env: dict[str, str],
    tool: str | None = None,
) -> HookOutcome:
    """Run every hook of ``event`` whose matcher takes ``tool``, all at once.

    Args:
        hooks: the event's hooks.
        event: the event name (``hook_event_name``).
        payload: the event's fields beyond ``hook_event_name`` and ``cwd`` (session_id, …).
        workspace: the hooks' working directory and ``CLAUDE_PROJECT_DIR``.
        env: their environment (the terminal policy's).
        tool: the tool name for PreToolUse/PostToolUse (our name).
    """
    chosen = [h for h in hooks if h.event == event and matches(h, tool)]
    outcome = HookOutcome()
    if not chosen:
        return outcome
    base = {**payload, "hook_event_name": event, "cwd": str(workspace)}
    env = {**env, "CLAUDE_PROJECT_DIR": str(workspace)}
    results = await asyncio.gather(
        *(_run_one(h, _payload(h, base, workspace), workspace, env) for h in chosen),
        return_exceptions=True,
    )
    for hook, result in zip(chosen, results, strict=True):
        if isinstance(result, BaseException):
            if isinstance(result, asyncio.CancelledError):
                raise result
            outcome.errors.append(f"{describe(hook)} could not start: {result}")
            continue
        _read(outcome, hook, event, *result)
    return outcome
