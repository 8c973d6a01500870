"""run_in_terminal in the ACP client's terminal (``ctx.session.terminal``): the command line the
tool would run itself, handed to the editor, which shows it live; the model gets the same kind of
result. Used only for a command that would run outside the sandbox anyway (the sandbox is off, or
the user let this command out): the sandbox cannot reach a process the editor starts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent_tui.tools.base import ToolContext, ToolResult
from agent_tui.tools.client_terminal import ClientRun, ClientTerminal
from agent_tui.tools.git_config import hardening_env
from agent_tui.tools.terminal_process import CWD_FILE_ENV, is_posix


async def run_in_client(
    terminal: ClientTerminal, command: str, shell: str, cwd: Path, timeout: float, ctx: ToolContext
) -> ToolResult:
    """Run ``command`` with ``shell`` in the client's terminal; a ``cd`` persists as it does
    when the tool runs it (the same ``trap`` writes where the command left us)."""
    import tempfile  # here, not at the top: tempfile (+ random, shutil) is ~5 ms of a start

    fd, cwd_file = tempfile.mkstemp(prefix="agent-tui-cwd-")
    os.close(fd)
    script = f"trap 'pwd > \"${CWD_FILE_ENV}\"' EXIT\n{command}" if is_posix(shell) else command
    # Only what the command needs on top of the editor's environment: the trap's file and git's
    # fsmonitor off (the editor's own environment is the user's, not ours to trim).
    env = {CWD_FILE_ENV: cwd_file, **hardening_env(os.environ)}
    try:
        run = await terminal.run(ctx.call_id, [shell, "-c", script], cwd, env, timeout)
        new_cwd = Path(cwd_file).read_text(encoding="utf-8", errors="replace").strip()
    finally:
        Path(cwd_file).unlink(missing_ok=True)
    if new_cwd and Path(new_cwd).is_dir():
        ctx.session.cwd = Path(new_cwd)
    return _result(command, run, timeout, ctx)


def _result(command: str, run: ClientRun, timeout: float, ctx: ToolContext) -> ToolResult:
    where = ctx.session.cwd if ctx.session.cwd is not None else ctx.workspace.resolve()
    if run.timed_out:
        status = (
            f"Timed out after {timeout:g} s: the command was killed. Use a larger timeout_s "
            "(max 600) for slow commands."
        )
    elif run.exit_code is not None:
        status = f"Exit code: {run.exit_code}"
    else:
        status = f"Killed by signal {run.signal or 'unknown'}"
    lines = [status, f"Working directory: {where}", "Ran in the editor's terminal."]
    if run.truncated:
        lines.append("Output is long; the editor kept its end.")
    output = run.output
    lines.append("Output:" if output.strip() else "Output: (none)")
    content = "\n".join(lines) + ("\n" + output if output.strip() else "")
    ctx.session.last_command = {"command": command, "output": output, "exit_code": run.exit_code}
    data: dict[str, Any] = {
        "exit_code": run.exit_code,
        "timed_out": run.timed_out,
        "cwd": str(where),
        "client_terminal_id": run.terminal_id,
    }
    return ToolResult(content, is_error=run.timed_out, data=data)
