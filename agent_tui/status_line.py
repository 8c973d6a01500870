"""``[ui] status_line``: run the user's status-line command and take the first line it prints.

The command gets the session's state as JSON on stdin, in Claude Code's ``statusLine`` format
(``front/status_line.py`` builds it), so the scripts people wrote for Claude Code work unchanged.
It runs as the user's own shell command, like a hook: from the user's config, or a workspace's
only once the folder is trusted (``config_schema.py``); outside the sandbox, in the workspace, in
its own process group (a timeout kills whatever it started), without the API key variables
(``key_env``). Its output is hostile text for whoever shows it: the front end keeps colours and
makes the rest visible.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from agent_tui.child_pipes import feed, kill_group, read_capped
from agent_tui.key_env import child_environ
from agent_tui.subreaper import spawn_own

TIMEOUT_S = 2.0  # a status line that takes longer is an error, not a wait
LINE_CHARS = 500  # kept of the first line: a bar, not a page


@dataclass(frozen=True)
class StatusLineOutput:
    """What one run gave: the first line of stdout (raw, colours and all), or why not.

    Args:
        line: the first line, ``""`` when it printed nothing.
        error: one line saying what went wrong (``None``: it worked).
    """

    line: str = ""
    error: str | None = None


async def run_status_line(command: str, stdin: bytes, cwd: Path) -> StatusLineOutput:
    """Run ``command`` in a shell with ``stdin``; its first line, or an error after ``TIMEOUT_S``."""
    timeout_s = TIMEOUT_S  # read at each run: tests shorten it
    try:
        proc = await spawn_own(
            asyncio.create_subprocess_shell,
            command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=child_environ(),
            start_new_session=True,  # its own process group: a timeout kills what it started
        )
    except OSError as exc:
        return StatusLineOutput(error=f"status line command could not start: {exc}")
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        out, err, _ = await asyncio.wait_for(
            asyncio.gather(
                read_capped(proc.stdout), read_capped(proc.stderr), feed(proc.stdin, stdin)
            ),
            timeout_s,
        )
        code = await asyncio.wait_for(proc.wait(), timeout_s)
    except TimeoutError:
        kill_group(proc.pid)
        await proc.wait()
        return StatusLineOutput(error=f"status line command timed out after {timeout_s:g} s")
    except asyncio.CancelledError:  # the app is closing: the command goes with it
        kill_group(proc.pid)
        raise
    return _read(code, out, err)


def _read(code: int, out: str, err: str) -> StatusLineOutput:
    if code != 0:
        detail = err.strip().splitlines()[-1][:200] if err.strip() else "no message"
        return StatusLineOutput(error=f"status line command failed (exit {code}): {detail}")
    first = out.split("\n", 1)[0].removesuffix("\r")
    return StatusLineOutput(first[:LINE_CHARS])
