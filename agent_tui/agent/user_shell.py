"""``!command``: a shell command the user runs themselves, whose output goes with the next prompt.

No model and no approval (the user typed it), but the same machinery as the terminal tool: the
configured shell, the ``[tools.terminal.env]`` environment policy (no API keys), the session's
current directory, the output capture's head-and-tail cap. The result waits in the session until
the next prompt, which carries it as an attachment (a user-side text block, valid for every API).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from agent_tui.agent.references import MAX_COMMAND_OUTPUT_CHARS, Reference
from agent_tui.sandbox.blocked import summary
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.terminal import command_environment, command_sandbox, current_cwd
from agent_tui.tools.terminal_process import resolve_shell, spawn

PENDING_KEY = "user_shell_pending"
TIMEOUT_S = 600.0  # Esc cancels sooner; this bounds a command that never ends


@dataclass(frozen=True)
class UserCommandResult:
    """A finished ``!command``: what ran, its exit status and (the head and tail of) its output."""

    command: str
    status: str
    output: str

    def reference(self) -> Reference:
        """The attachment the next prompt carries."""
        output = self.output
        if len(output) > MAX_COMMAND_OUTPUT_CHARS:
            output = "[… earlier output cut]\n" + output[-MAX_COMMAND_OUTPUT_CHARS:]
        text = f"The user ran this command themselves:\n$ {self.command}\n{self.status}\n"
        return Reference("shell", f"!{self.command}", text + (output or "(no output)"))


async def run_user_command(ctx: ToolContext, command: str) -> UserCommandResult:
    """Run ``command`` as the terminal tool would, wait for it, and queue it for the next prompt.

    Cancelling the awaiting task kills the command's whole process group.
    """
    settings = ctx.config.section("tools", "terminal") if ctx.config is not None else None
    shell = resolve_shell((settings or {}).get("shell") if isinstance(settings, dict) else None)
    sandbox, _ = command_sandbox(ctx)
    proc, _log = await spawn(
        command,
        shell=shell,
        cwd=current_cwd(ctx),
        label="user",
        env=command_environment(ctx),
        sandbox=sandbox,
    )
    try:
        await asyncio.wait_for(proc.exited.wait(), TIMEOUT_S)
        await asyncio.wait_for(proc.closed.wait(), 0.3)
    except TimeoutError:
        pass  # a timeout (or a background child holding the pipe): kill and keep what came
    except asyncio.CancelledError:
        await asyncio.shield(proc.terminate())
        raise
    # The shell's own exit status, taken before what it left behind is cleaned up: under load the
    # output pipe can stay open past the short wait for it, and `exit 3` was reported "killed".
    exited = proc.status() if proc.returncode is not None else None
    if proc.returncode is None or proc.anything_alive():
        await proc.terminate()
    output = proc.capture.text()
    blocks = await proc.launch.finish(output) if proc.launch is not None else []
    if blocks:
        output += "\n" + summary(blocks)
    result = UserCommandResult(command, exited or proc.status(), output)
    pending(ctx.session).append(result)
    return result


def pending(session: SessionState) -> list[UserCommandResult]:
    """The session's ``!command`` results not yet sent with a prompt."""
    queue: list[UserCommandResult] = session.extras.setdefault(PENDING_KEY, [])
    return queue


def take_pending(session: SessionState) -> list[Reference]:
    """The waiting results as attachments, emptying the queue (the prompt now carries them)."""
    queue = pending(session)
    references = [result.reference() for result in queue]
    queue.clear()
    return references
