"""The agent's side of hooks: which hooks apply, with what environment, and the event payloads.

The loop, the call processor and compaction call these at their events; the hook set is loaded
once per Config (trusting the folder reloads the Config, so workspace hooks then apply).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_tui.hooks.runner import HookOutcome, run_hooks
from agent_tui.hooks.sources import HookSet, load_hooks
from agent_tui.key_env import child_environ
from agent_tui.tools.terminal_env import terminal_environment

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.tools.base import SessionState

_SET_KEY = "hooks"  # SessionState.extras: (the Config it was loaded for, HookSet)
SESSION_KEY = "hook_session"  # SessionState.extras: (session id, transcript path)
_BACKGROUND: set[asyncio.Task[HookOutcome]] = set()  # Notification hooks the app does not wait for


class HookDeps(Protocol):
    """What hooks read of a session; ``agent.loop.AgentDeps`` has it (hooks sit below the agent)."""

    @property
    def config(self) -> Config: ...

    @property
    def workspace(self) -> Path: ...

    @property
    def session(self) -> SessionState: ...


def hook_set(deps: HookDeps) -> HookSet:
    """The hooks that apply to this session's current Config (loaded on first use)."""
    cached = deps.session.extras.get(_SET_KEY)
    if cached is not None and cached[0] is deps.config:
        return cached[1]  # type: ignore[no-any-return]
    found = load_hooks(deps.config)
    deps.session.extras[_SET_KEY] = (deps.config, found)
    return found


def hook_environment(config: Config) -> dict[str, str]:
    """The terminal's environment policy: a hook sees no API key, as a command does not."""
    keys = [config.model.api_key_env, *(m.api_key_env for m in config.models.values())]
    settings = config.section("tools", "terminal", "env")
    policy = settings if isinstance(settings, dict) else None
    return terminal_environment(child_environ(), policy, keys)


def remember_session(deps: HookDeps, session_id: str, transcript: Path | None) -> None:
    """Record the session id and file every hook is told about (``session_id``, ``transcript_path``)."""
    deps.session.extras[SESSION_KEY] = (session_id, str(transcript) if transcript else "")


async def fire(
    deps: HookDeps, event: str, fields: dict[str, Any], tool: str | None = None
) -> HookOutcome:
    """Run ``event``'s hooks with the common fields plus ``fields``."""
    hooks = hook_set(deps).for_event(event)
    if not hooks:
        return HookOutcome()
    session_id, transcript = deps.session.extras.get(SESSION_KEY, ("", ""))
    payload = {"session_id": session_id, "transcript_path": transcript, **fields}
    return await run_hooks(
        hooks,
        event,
        payload,
        workspace=deps.workspace,
        env=hook_environment(deps.config),
        tool=tool,
    )


def notify(deps: HookDeps, message: str) -> None:
    """Run the Notification hooks in the background (an approval is waiting)."""
    if not hook_set(deps).for_event("Notification"):
        return
    task = asyncio.get_running_loop().create_task(fire(deps, "Notification", {"message": message}))
    _BACKGROUND.add(task)
    task.add_done_callback(_BACKGROUND.discard)


async def drain_notifications() -> None:
    """Let Notification hooks still running finish (each has its timeout) before the app exits."""
    if _BACKGROUND:
        await asyncio.gather(*list(_BACKGROUND), return_exceptions=True)
