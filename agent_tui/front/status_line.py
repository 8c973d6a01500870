"""``[ui] status_line``: the session's state as Claude Code's ``statusLine`` JSON, and the run.

Claude Code gives its status-line command this JSON on stdin (its docs, "statusLine"):
``session_id``, ``transcript_path``, ``cwd``, ``model {id, display_name}``, ``workspace
{current_dir, project_dir}``, ``version``, ``output_style``, ``cost {total_cost_usd,
total_duration_ms, total_api_duration_ms, total_lines_added, total_lines_removed}``,
``context_window {total_input_tokens, total_output_tokens, context_window_size,
used_percentage, remaining_percentage, current_usage}`` and ``exceeds_200k_tokens``. The same keys
here let the scripts people wrote for it run unchanged. The cost, tokens and lines are the
session's, its earlier runs included (``agent/totals.py``); what agent-tui does not count (the
API's own time) is 0, and its own state sits under ``agent_tui`` (mode, sandbox, endpoint). The
command itself runs in ``status_line.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agent_tui import __version__
from agent_tui.status_line import StatusLineOutput, run_status_line

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.front.door import Front


@dataclass(frozen=True)
class Measured:
    """What the front end measured that the agent does not keep: the last request's prompt
    tokens (0: none yet) and how long the session has run."""

    context_tokens: int = 0
    duration_s: float = 0.0


class StatusLine:
    """The status-line command of ``[ui] status_line`` (None when unset), and running it."""

    def __init__(self, agent: Agent, front: Front) -> None:
        self._agent = agent
        self._front = front

    @property
    def command(self) -> str | None:
        """Read each time: trusting the folder may bring a workspace's command."""
        command = self._agent.deps.config.section("ui", "status_line")
        return command if isinstance(command, str) and command.strip() else None

    def state(self, measured: Measured) -> dict[str, Any]:
        """The JSON the command gets on stdin (see the module docstring)."""
        from agent_tui.agent.spend import spending

        agent, front = self._agent, self._front
        workspace = str(front.workspace)
        spent, status = spending(agent), front.status()
        recorder = agent.recorder
        started = recorder is not None and recorder.writer.started
        return {
            "hook_event_name": "Status",
            "session_id": recorder.session_id if recorder is not None else "",
            "transcript_path": str(recorder.writer.path) if recorder and started else "",
            "cwd": workspace,
            "model": {"id": agent.model.name, "display_name": agent.model.name},
            "workspace": {"current_dir": workspace, "project_dir": workspace},
            "version": __version__,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": spent.session_usd or 0.0,
                "total_duration_ms": round(measured.duration_s * 1000),
                "total_api_duration_ms": 0,
                "total_lines_added": spent.lines_added,
                "total_lines_removed": spent.lines_removed,
            },
            "context_window": _context_window(agent, measured.context_tokens),
            "exceeds_200k_tokens": measured.context_tokens > 200_000,
            "agent_tui": {
                "mode": status.mode,
                "sandbox": status.sandbox,
                "endpoint": front.endpoint(),
            },
        }

    async def run(self, state: dict[str, Any]) -> StatusLineOutput:
        """Run the command with ``state`` on stdin (an error when none is configured)."""
        command = self.command
        if command is None:
            return StatusLineOutput(error="no [ui] status_line command is set")
        stdin = json.dumps(state).encode()
        return await run_status_line(command, stdin, self._front.workspace)


def _context_window(agent: Agent, tokens: int) -> dict[str, Any]:
    total = agent.total_usage
    size = agent.budget.window(agent.model)
    used = round(100 * tokens / size, 1) if size and tokens else 0.0
    return {
        "total_input_tokens": total.input_tokens,
        "total_output_tokens": total.output_tokens,
        "context_window_size": size,
        "used_percentage": used,
        "remaining_percentage": round(100 - used, 1),
        "current_usage": {
            "input_tokens": tokens,
            "output_tokens": agent.last_turn_usage.output_tokens,
            "cache_creation_input_tokens": total.cache_write_tokens,
            "cache_read_input_tokens": total.cache_read_tokens,
        },
    }
