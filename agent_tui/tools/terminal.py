"""run_in_terminal, get_terminal_output and kill_terminal (DESIGN §4).

A command runs with the user's shell in the session's working directory (a ``cd`` persists to the
next call), stdin at /dev/null, in its own process group; a timeout kills the whole group. The model
gets head + tail of the output and the path of a log with all of it.
"""

from __future__ import annotations

import asyncio
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.errors import ToolError
from agent_tui.key_env import child_environ
from agent_tui.sandbox.blocked import Block, summary
from agent_tui.tools.base import BaseTool, Confirmation, Prepared, ToolContext, ToolResult
from agent_tui.tools.git_config import hardening_env
from agent_tui.tools.terminal_client import run_in_client
from agent_tui.tools.terminal_env import terminal_environment
from agent_tui.tools.terminal_manager import terminal_manager
from agent_tui.tools.terminal_process import (
    CWD_FILE_ENV,
    ShellProcess,
    is_posix,
    resolve_shell,
    spawn,
)

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
# After the shell exits, how long output may still arrive before we stop waiting for the pipe to
# close (a `server &` keeps it open; it then lives on as a background terminal).
PIPE_DRAIN_S = 0.3


def _terminal_settings(ctx: ToolContext) -> dict[str, Any]:
    section = ctx.config.section("tools", "terminal") if ctx.config is not None else None
    return section if isinstance(section, dict) else {}


def command_environment(ctx: ToolContext) -> dict[str, str]:
    """The environment a command runs with: ``[tools.terminal.env]`` over the app's (no API keys),
    and git's ``core.fsmonitor`` off whatever a repository says (git_config.hardening_env)."""
    config = ctx.config
    key_names: list[str] = []
    if config is not None:
        key_names = [config.model.api_key_env, *(m.api_key_env for m in config.models.values())]
    # child_environ(): the key variables go even when the policy widens the rest (inherit, ignore_
    # default_excludes); only its ``set`` table can put one back, by name.
    env = terminal_environment(child_environ(), _terminal_settings(ctx).get("env"), key_names)
    return {**env, **hardening_env(env)}


def command_sandbox(ctx: ToolContext) -> tuple[Any, tuple[str, ...]]:
    """The sandbox a command runs in (None: outside) and the domains allowed for it once.

    Raises:
        ToolError: ``[sandbox] required = true`` and the sandbox cannot run here.
    """
    sandbox = ctx.sandbox
    if sandbox is None:
        return None, ()
    if sandbox.refuses:
        raise ToolError(f"Commands cannot run: {sandbox.notice()} Tell the user; do not retry.")
    escalation = ctx.sandbox_exception
    if escalation is not None and escalation.outside:
        return None, ()
    return (sandbox if sandbox.active else None), (escalation.domains if escalation else ())


def current_cwd(ctx: ToolContext) -> Path:
    """Where the next command runs: the last command's final directory, else the workspace."""
    cwd = ctx.session.cwd
    if cwd is not None and cwd.is_dir():
        return cwd
    return ctx.workspace.resolve()


def _where(cwd: Path, workspace: Path) -> str:
    """The working directory as the dialog says it: inside the workspace relative to it (short,
    and the same wherever the workspace is), outside it in full (that is what needs a look)."""
    if cwd == workspace:
        return "the workspace"
    if cwd.is_relative_to(workspace):
        return f"`{cwd.relative_to(workspace)}` in the workspace"
    return f"`{cwd}` (outside the workspace)"


def _short(command: str, limit: int = 80) -> str:
    first = command.strip().splitlines()[0] if command.strip() else ""
    more = first != command.strip() or len(first) > limit
    return first[:limit] + ("…" if more else "")


def _fenced(text: str, lang: str = "") -> str:
    """A Markdown code block whose fence is longer than any backtick run inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text}\n{fence}"


def _terminal_id(input: dict[str, Any]) -> str:
    terminal_id = input.get("terminal_id")
    if not isinstance(terminal_id, str) or not terminal_id.strip():
        raise ToolError(
            "`terminal_id` is required: pass the id run_in_terminal returned (e.g. term-1)."
        )
    return terminal_id.strip()


class RunInTerminalTool(BaseTool):
    name = "run_in_terminal"

    @staticmethod
    def _command(input: dict[str, Any]) -> str:
        command = input.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolError("`command` is required: give the shell command line to run.")
        return command

    @staticmethod
    def _background(input: dict[str, Any]) -> bool:
        value = input.get("is_background", False)
        if not isinstance(value, bool):
            raise ToolError("`is_background` must be true or false (or left out).")
        return value

    def _timeout(self, input: dict[str, Any], ctx: ToolContext) -> float:
        value = input.get("timeout_s", _terminal_settings(ctx).get("timeout_s", DEFAULT_TIMEOUT_S))
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ToolError("`timeout_s` must be a number of seconds (at most 600).")
        if not 0 < value <= MAX_TIMEOUT_S:
            raise ToolError(
                f"`timeout_s` must be between 0 and {MAX_TIMEOUT_S:g} seconds; for longer-running "
                "commands use is_background=true and check on them with get_terminal_output."
            )
        return float(value)

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        command = self._command(input)
        background = self._background(input)
        explanation = input.get("explanation")
        cwd = current_cwd(ctx)
        parts = [_fenced(command, "sh")]
        if isinstance(explanation, str) and explanation.strip():
            parts.append(explanation.strip())
        parts.append(f"Working directory: {_where(cwd, ctx.workspace.resolve())}")
        if background:
            parts.append("Runs in the background until it exits or is killed.")
        else:
            parts.append(f"Timeout: {self._timeout(input, ctx):g} s")
        title = "Run command in the background?" if background else "Run command in terminal?"
        return Prepared(
            invocation_message=f"Running `{_short(command)}`",
            past_tense_message=f"Ran `{_short(command)}`",
            confirmation=Confirmation(title, "\n\n".join(parts)),
            paths=(cwd,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        command = self._command(input)
        shell = resolve_shell(_terminal_settings(ctx).get("shell"))
        cwd = current_cwd(ctx)
        if self._background(input):
            return await self._start_background(command, shell, cwd, ctx)
        timeout = self._timeout(input, ctx)
        sandbox, domains = command_sandbox(ctx)
        if sandbox is None and ctx.session.terminal is not None:
            return await run_in_client(ctx.session.terminal, command, shell, cwd, timeout, ctx)
        import tempfile  # here, not at the top: tempfile (+ random, shutil) is ~5 ms of a start

        # Inside the sandbox only its private temp dir is writable: the trap writes there.
        fd, cwd_file = tempfile.mkstemp(
            prefix="agent-tui-cwd-", dir=sandbox.private_tmp() if sandbox else None
        )
        os.close(fd)
        # The trap runs when the shell exits, even after `exit` or `set -e`, and records where
        # the command left us; a file, not stdout, so the command's own output cannot confuse it.
        script = f"trap 'pwd > \"${CWD_FILE_ENV}\"' EXIT\n{command}" if is_posix(shell) else command
        try:
            proc, log_path = await spawn(
                script,
                shell=shell,
                cwd=cwd,
                label="run",
                on_output=ctx.on_output,
                env={**command_environment(ctx), CWD_FILE_ENV: cwd_file},
                sandbox=sandbox,
                extra_domains=domains,
            )
            timed_out = await self._wait(proc, timeout)
            new_cwd = Path(cwd_file).read_text(encoding="utf-8", errors="replace").strip()
        finally:
            Path(cwd_file).unlink(missing_ok=True)
        if new_cwd and Path(new_cwd).is_dir():
            ctx.session.cwd = Path(new_cwd)
        result = self._result(command, proc, log_path, timed_out, timeout, ctx)
        return await with_sandbox_blocks(result, proc)

    @staticmethod
    async def _wait(proc: ShellProcess, timeout: float) -> bool:
        """Wait for the shell to exit or time out (then kill its group); True if it timed out."""
        timed_out = False
        try:
            try:
                await asyncio.wait_for(proc.exited.wait(), timeout)
            except TimeoutError:
                timed_out = True
                await proc.terminate()
            try:
                await asyncio.wait_for(proc.closed.wait(), PIPE_DRAIN_S)
            except TimeoutError:
                pass  # something the command started still holds the output pipe
        except asyncio.CancelledError:
            # The user cancelled the turn: the command must not live on.
            await asyncio.shield(proc.terminate())
            raise
        return timed_out

    def _result(
        self,
        command: str,
        proc: ShellProcess,
        log_path: Path,
        timed_out: bool,
        timeout: float,
        ctx: ToolContext,
    ) -> ToolResult:
        capture = proc.capture
        output = capture.text()
        code = proc.returncode
        lines: list[str] = []
        if timed_out:
            lines.append(
                f"Timed out after {timeout:g} s: the command and every process it started were "
                "killed. Use is_background=true for servers and watchers, or a larger timeout_s "
                "(max 600) for slow commands."
            )
        else:
            lines.append(
                f"Exit code: {code}" if code is None or code >= 0 else f"Killed by signal {-code}"
            )
        lines.append(f"Working directory: {current_cwd(ctx)}")
        data: dict[str, Any] = {
            "exit_code": code,
            "timed_out": timed_out,
            "log_path": str(log_path),
            "cwd": str(current_cwd(ctx)),
        }
        truncated = capture.truncated
        if not proc.closed.is_set():
            # Still holding the pipe after the shell exited: adopt it as a background terminal.
            terminal = terminal_manager(ctx.session).add(command, current_cwd(ctx), proc, log_path)
            capture.reset()
            data["terminal_id"] = terminal.terminal_id
            lines.append(
                f"Processes started by the command are still running as terminal "
                f"{terminal.terminal_id}: use get_terminal_output / kill_terminal with it."
            )
        if truncated:
            lines.append(f"Output is long; the start and end are shown. Full log: {log_path}")
        lines.append("Output:" if output.strip() else "Output: (none)")
        content = "\n".join(lines) + ("\n" + output if output.strip() else "")
        ctx.session.last_command = {"command": command, "output": output, "exit_code": code}
        return ToolResult(content, is_error=timed_out, data=data)

    async def _start_background(
        self, command: str, shell: str, cwd: Path, ctx: ToolContext
    ) -> ToolResult:
        sandbox, domains = command_sandbox(ctx)
        proc, log_path = await spawn(
            command,
            shell=shell,
            cwd=cwd,
            label="bg",
            env=command_environment(ctx),
            sandbox=sandbox,
            extra_domains=domains,
        )
        terminal = terminal_manager(ctx.session).add(command, cwd, proc, log_path)
        tid = terminal.terminal_id
        content = (
            f"Started in the background as terminal {tid} (pid {proc.pid}, in {cwd}). "
            f"Call get_terminal_output with terminal_id={tid!r} for its output and status, "
            f"kill_terminal to stop it. Full log: {log_path}"
        )
        return ToolResult(
            content, data={"terminal_id": tid, "log_path": str(log_path), "cwd": str(cwd)}
        )


async def with_sandbox_blocks(result: ToolResult, proc: ShellProcess) -> ToolResult:
    """``result`` with what the sandbox stopped, said for the model and kept in ``data``
    (``sandbox_blocks``: the executor asks the user whether to let it through)."""
    launch = proc.launch
    if launch is None or not launch.sandboxed:
        return result
    blocks = await launch.finish(proc.capture.text())
    data = {**result.data, "sandboxed": True}
    if not blocks:
        return replace(result, data=data)
    data["sandbox_blocks"] = [[b.kind, b.target] for b in blocks]
    return replace(result, content=f"{result.content}\n\n{summary(blocks)}", data=data)


class GetTerminalOutputTool(BaseTool):
    name = "get_terminal_output"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        terminal_id = _terminal_id(input)
        return Prepared(f"Reading output of {terminal_id}", f"Read output of {terminal_id}")

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        terminal = terminal_manager(ctx.session).get(_terminal_id(input))
        status = terminal.status()  # before reading: output that arrived is then all included
        text, truncated = terminal.read_new()
        lines = [f"Terminal {terminal.terminal_id}: {status} (`{_short(terminal.command)}`)"]
        if truncated:
            lines.append(
                f"New output is long; the start and end are shown. Full log: {terminal.log_path}"
            )
        lines.append(
            "New output since the last read:"
            if text.strip()
            else "No new output since the last read."
        )
        content = "\n".join(lines) + ("\n" + text if text.strip() else "")
        refused = network_refusals(terminal.process)
        if refused:
            content += "\n\n" + summary(refused)
        return ToolResult(content, data={"status": status, "log_path": str(terminal.log_path)})


def network_refusals(proc: ShellProcess) -> list[Block]:
    """The domains the sandbox's proxy refused a background command so far (not asked about:
    the command goes on; the model can ask the user, or the user can allow the domain)."""
    launch = proc.launch
    if launch is None or launch.proxy is None:
        return []
    return [Block("network", host) for host in launch.proxy.blocked.get(launch.token, [])]


class KillTerminalTool(BaseTool):
    name = "kill_terminal"

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        terminal_id = _terminal_id(input)
        manager = terminal_manager(ctx.session)
        terminals = {t.terminal_id: t for t in manager.terminals()}
        message = f"Stop terminal `{terminal_id}` and every process it started."
        if terminal_id in terminals:
            message += "\n\n" + _fenced(terminals[terminal_id].command, "sh")
        return Prepared(
            f"Killing {terminal_id}",
            f"Killed {terminal_id}",
            confirmation=Confirmation(f"Kill terminal {terminal_id}?", message),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        manager = terminal_manager(ctx.session)
        before = manager.get(_terminal_id(input))
        was_running = before.running
        left_running = not was_running and before.process.anything_alive()
        terminal = await manager.kill(_terminal_id(input))
        text, truncated = terminal.read_new()
        if was_running:
            head = f"Killed terminal {terminal.terminal_id} and its processes."
        elif left_running:
            head = (
                f"Terminal {terminal.terminal_id} had finished; killed the processes it left "
                "running."
            )
        else:
            head = f"Terminal {terminal.terminal_id} had already finished ({terminal.status()})."
        lines = [head]
        if truncated:
            lines.append(f"Full log: {terminal.log_path}")
        if text.strip():
            lines.append("Last output:\n" + text)
        return ToolResult("\n".join(lines), data={"status": terminal.status()})
