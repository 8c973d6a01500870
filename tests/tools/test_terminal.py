"""run_in_terminal / get_terminal_output / kill_terminal on real shells and real process groups."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from agent_tui.config import load_config
from agent_tui.errors import ToolError
from agent_tui.resources import data_dir
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import builtin_registry
from agent_tui.tools.terminal_manager import terminal_manager
from agent_tui.tools.terminal_output import OutputCapture


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SHELL", "/bin/bash")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    return ws


@pytest.fixture
async def ctx(workspace: Path) -> AsyncIterator[ToolContext]:
    context = ToolContext(workspace=workspace, session=SessionState())
    yield context
    # Never leave a test's processes behind.
    await terminal_manager(context.session).aclose()


async def run(ctx: ToolContext, **input: Any) -> Any:
    tool = builtin_registry().get("run_in_terminal")
    tool.prepare(input, ctx)
    return await tool.invoke(input, ctx)


async def call(name: str, ctx: ToolContext, **input: Any) -> Any:
    tool = builtin_registry().get(name)
    tool.prepare(input, ctx)
    return await tool.invoke(input, ctx)


def pid_alive(pid: int) -> bool:
    """Alive and not a zombie (the container's PID 1 may never reap orphans)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


async def wait_until(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    """Wait for a condition nothing signals (a process dying, output arriving in a pipe)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not met in time"
        await asyncio.sleep(0.02)


def child_pid(text: str) -> int:
    match = re.search(r"child=(\d+)", text)
    assert match, text
    return int(match.group(1))


# -- manifests ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "run_in_terminal",
        "get_terminal_output",
        "kill_terminal",
        "fetch_webpage",
        "get_changed_files",
    ],
)
def test_manifest_is_complete_and_lean(name: str) -> None:
    data = json.loads((data_dir("tools") / f"{name}.json").read_text())
    for key in (
        "name",
        "displayName",
        "toolReferenceName",
        "userDescription",
        "modelDescription",
        "kind",
        "tags",
    ):
        assert data[key], key
    assert data["name"] == name
    assert isinstance(data["annotations"]["readOnlyHint"], bool)
    assert len(data["modelDescription"]) <= 700
    schema = data["inputSchema"]
    assert schema["additionalProperties"] is False
    assert all(prop.get("description") for prop in schema["properties"].values())
    assert name in builtin_registry()


# -- run_in_terminal --------------------------------------------------------------------------


async def test_cd_persists_to_the_next_call(ctx: ToolContext, workspace: Path) -> None:
    first = await run(ctx, command="cd sub")
    assert first.data["exit_code"] == 0
    second = await run(ctx, command="pwd")
    assert second.content.rstrip().endswith(str(workspace / "sub"))
    assert ctx.session.cwd == workspace / "sub"


async def test_cd_persists_even_when_the_command_then_exits_nonzero(
    ctx: ToolContext, workspace: Path
) -> None:
    result = await run(ctx, command="cd sub; exit 3")
    assert result.data["exit_code"] == 3
    assert "Exit code: 3" in result.content
    assert result.is_error is False
    assert ctx.session.cwd == workspace / "sub"


async def test_cd_in_a_subshell_does_not_persist(ctx: ToolContext, workspace: Path) -> None:
    await run(ctx, command="(cd sub)")
    assert (await run(ctx, command="pwd")).content.rstrip().endswith(str(workspace))


async def test_output_that_looks_like_a_marker_does_not_confuse_cwd_tracking(
    ctx: ToolContext, workspace: Path
) -> None:
    await run(ctx, command="cd sub && echo /etc && printf '%s' /tmp")
    assert ctx.session.cwd == workspace / "sub"


async def test_stdin_is_closed_so_read_returns_at_once(ctx: ToolContext) -> None:
    result = await run(ctx, command='read answer; echo "read-status=$?"', timeout_s=20)
    assert "read-status=1" in result.content
    assert result.data["timed_out"] is False


async def test_nonzero_exit_code_and_stderr_are_reported(ctx: ToolContext) -> None:
    result = await run(ctx, command="echo to-stderr >&2; exit 42")
    assert result.data["exit_code"] == 42
    assert "Exit code: 42" in result.content
    assert "to-stderr" in result.content
    assert ctx.session.last_command == {
        "command": "echo to-stderr >&2; exit 42",
        "output": "to-stderr\n",
        "exit_code": 42,
    }


async def test_timeout_kills_the_process_group_including_children(ctx: ToolContext) -> None:
    result = await run(ctx, command="sleep 300 & echo child=$!; wait", timeout_s=1)
    assert result.data["timed_out"] is True
    assert result.is_error is True
    assert "Timed out after 1 s" in result.content
    pid = child_pid(result.content)
    await wait_until(lambda: not pid_alive(pid))


async def test_timeout_escalates_to_sigkill_for_a_child_ignoring_sigterm(ctx: ToolContext) -> None:
    command = "sh -c 'trap \"\" TERM; sleep 300' & echo child=$!; wait"
    result = await run(ctx, command=command, timeout_s=0.5)
    assert result.data["timed_out"] is True
    pid = child_pid(result.content)
    await wait_until(lambda: not pid_alive(pid))


async def test_timeout_comes_from_config_when_not_given(workspace: Path, tmp_path: Path) -> None:
    config = load_config(
        workspace,
        cli={"tools": {"terminal": {"timeout_s": 0.5}}},
        env={},
        user_file=tmp_path / "no-user-rc",
    )
    ctx = ToolContext(workspace=workspace, session=SessionState(), config=config)
    result = await run(ctx, command="sleep 300")
    assert result.data["timed_out"] is True
    assert "0.5 s" in result.content


async def test_cancelling_the_call_kills_the_command(ctx: ToolContext) -> None:
    seen = asyncio.Event()
    output: list[str] = []

    def on_output(text: str) -> None:
        output.append(text)
        if "child=" in "".join(output):
            seen.set()

    ctx.on_output = on_output
    task = asyncio.create_task(run(ctx, command="sleep 300 & echo child=$!; wait"))
    await seen.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    pid = child_pid("".join(output))
    await wait_until(lambda: not pid_alive(pid))


async def test_long_output_is_head_and_tail_with_the_full_log_on_disk(
    ctx: ToolContext, tmp_path: Path
) -> None:
    result = await run(ctx, command="seq 1 200000")
    content = result.content
    assert len(content) < 12_000
    assert "\n1\n2\n3\n" in content
    assert content.rstrip().endswith("199999\n200000")
    assert "\n100000\n" not in content
    assert "characters omitted" in content
    log = Path(result.data["log_path"])
    assert log.parent == tmp_path / "state" / "logs"
    assert str(log) in content
    assert log.read_text() == "".join(f"{i}\n" for i in range(1, 200001))


async def test_live_output_chunks_add_up_to_the_whole_output(ctx: ToolContext) -> None:
    chunks: list[str] = []
    ctx.on_output = chunks.append
    await run(ctx, command="seq 1 5000")
    assert "".join(chunks) == "".join(f"{i}\n" for i in range(1, 5001))


async def test_ansi_colours_are_stripped_for_the_model_but_kept_in_the_log(
    ctx: ToolContext,
) -> None:
    result = await run(ctx, command=r"printf '\033[31mred\033[0m\n'")
    assert "red" in result.content and "\x1b" not in result.content
    assert "\x1b[31m" in Path(result.data["log_path"]).read_text()


async def test_configured_shell_is_used(workspace: Path, tmp_path: Path) -> None:
    config = load_config(
        workspace, cli={"tools": {"terminal": {"shell": "dash"}}}, env={}, user_file=tmp_path / "x"
    )
    ctx = ToolContext(workspace=workspace, session=SessionState(), config=config)
    result = await run(ctx, command="echo shell=$0")
    assert re.search(r"shell=\S*dash", result.content)


async def test_missing_configured_shell_is_a_tool_error(workspace: Path, tmp_path: Path) -> None:
    config = load_config(
        workspace,
        cli={"tools": {"terminal": {"shell": "no-such-shell-xyz"}}},
        env={},
        user_file=tmp_path / "x",
    )
    ctx = ToolContext(workspace=workspace, session=SessionState(), config=config)
    with pytest.raises(ToolError, match="tools.terminal.shell"):
        await run(ctx, command="true")


async def test_a_background_child_of_a_foreground_command_becomes_a_terminal(
    ctx: ToolContext,
) -> None:
    result = await run(ctx, command="sleep 300 & echo child=$!")
    assert result.data["exit_code"] == 0
    terminal_id = result.data["terminal_id"]
    assert terminal_id in result.content
    pid = child_pid(result.content)
    assert pid_alive(pid)
    killed = await call("kill_terminal", ctx, terminal_id=terminal_id)
    assert "Killed" in killed.content
    await wait_until(lambda: not pid_alive(pid))
    status = await call("get_terminal_output", ctx, terminal_id=terminal_id)
    assert ": killed" in status.content


@pytest.mark.parametrize(
    ("input", "message"),
    [
        ({}, "`command` is required"),
        ({"command": "   "}, "`command` is required"),
        ({"command": 5}, "`command` is required"),
        ({"command": "true", "timeout_s": 0}, "between 0 and 600"),
        ({"command": "true", "timeout_s": 601}, "between 0 and 600"),
        ({"command": "true", "timeout_s": "soon"}, "must be a number"),
        ({"command": "true", "timeout_s": True}, "must be a number"),
        ({"command": "true", "is_background": "yes"}, "`is_background` must be true or false"),
    ],
)
async def test_bad_input_is_a_tool_error(
    ctx: ToolContext, input: dict[str, Any], message: str
) -> None:
    tool = builtin_registry().get("run_in_terminal")
    with pytest.raises(ToolError, match=message):
        tool.prepare(input, ctx)
    with pytest.raises(ToolError, match=message):
        await tool.invoke(input, ctx)


def test_confirmation_shows_command_explanation_and_cwd(ctx: ToolContext, workspace: Path) -> None:
    tool = builtin_registry().get("run_in_terminal")
    prepared = tool.prepare({"command": "npm test", "explanation": "Run the tests."}, ctx)
    assert prepared.confirmation is not None
    message = prepared.confirmation.message
    assert "```sh\nnpm test\n```" in message
    assert "Run the tests." in message
    assert "Working directory: the workspace" in message
    assert prepared.invocation_message == "Running `npm test`"
    assert prepared.past_tense_message == "Ran `npm test`"


def test_confirmation_names_a_directory_inside_relatively_and_one_outside_in_full(
    ctx: ToolContext, workspace: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Where the last command left the shell: a folder of the workspace as a short relative
    path, a folder outside it in full and marked (that is the one to look at twice)."""
    tool = builtin_registry().get("run_in_terminal")
    (workspace / "src" / "app").mkdir(parents=True)
    ctx.session.cwd = workspace / "src" / "app"
    message = tool.prepare({"command": "ls"}, ctx).confirmation.message  # type: ignore[union-attr]
    assert "Working directory: `src/app` in the workspace" in message
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    ctx.session.cwd = elsewhere
    message = tool.prepare({"command": "ls"}, ctx).confirmation.message  # type: ignore[union-attr]
    assert f"Working directory: `{elsewhere}` (outside the workspace)" in message


def test_confirmation_fence_survives_backticks_in_the_command(ctx: ToolContext) -> None:
    tool = builtin_registry().get("run_in_terminal")
    prepared = tool.prepare({"command": "echo ```x```"}, ctx)
    assert prepared.confirmation is not None
    assert prepared.confirmation.message.startswith("````sh\necho ```x```\n````")


# -- background terminals -------------------------------------------------------------------


async def test_background_terminal_output_status_and_kill(ctx: ToolContext) -> None:
    started = await run(ctx, command="echo ready; echo child=$$; sleep 300", is_background=True)
    terminal_id = started.data["terminal_id"]
    assert terminal_id in started.content
    terminal = terminal_manager(ctx.session).get(terminal_id)
    await wait_until(lambda: "ready" in terminal.process.capture.head)

    first = await call("get_terminal_output", ctx, terminal_id=terminal_id)
    assert "running" in first.content and "ready" in first.content
    pid = child_pid(first.content)
    again = await call("get_terminal_output", ctx, terminal_id=terminal_id)
    assert "No new output" in again.content and "\nready" not in again.content

    killed = await call("kill_terminal", ctx, terminal_id=terminal_id)
    assert "Killed terminal" in killed.content
    await wait_until(lambda: not pid_alive(pid))
    after = await call("get_terminal_output", ctx, terminal_id=terminal_id)
    assert "killed" in after.content


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="the sweep reads /proc (Linux)")
async def test_kill_reaches_a_process_that_left_the_group(ctx: ToolContext) -> None:
    # `setsid` puts sleep in a session (and process group) of its own: a group kill misses it.
    command = "setsid sleep 300 & echo child=$!; sleep 300"
    started = await run(ctx, command=command, is_background=True)
    terminal = terminal_manager(ctx.session).get(started.data["terminal_id"])
    await wait_until(lambda: "child=" in terminal.process.capture.head)
    pid = child_pid(terminal.process.capture.head)
    await wait_until(lambda: os.getsid(pid) == pid)  # setsid has run: it left the group
    assert os.getpgid(pid) != terminal.process.pid
    await call("kill_terminal", ctx, terminal_id=terminal.terminal_id)
    await wait_until(lambda: not pid_alive(pid))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="the sweep reads /proc (Linux)")
async def test_a_timeout_kills_a_double_forked_daemon_too(ctx: ToolContext) -> None:
    # The classic daemon: fork, setsid, fork again, so it is not even the shell's child.
    command = "( setsid sh -c 'sleep 300 & echo child=$!' & ); sleep 300"
    result = await run(ctx, command=command, timeout_s=1)
    assert result.data["timed_out"] is True
    pid = child_pid(result.content)
    await wait_until(lambda: not pid_alive(pid))


async def test_background_terminal_reports_its_exit_code(ctx: ToolContext) -> None:
    started = await run(ctx, command="echo done; exit 7", is_background=True)
    terminal = terminal_manager(ctx.session).get(started.data["terminal_id"])
    await terminal.process.closed.wait()
    result = await call("get_terminal_output", ctx, terminal_id=terminal.terminal_id)
    assert "exited 7" in result.content and "done" in result.content
    killed = await call("kill_terminal", ctx, terminal_id=terminal.terminal_id)
    assert "already finished (exited 7)" in killed.content


async def test_kill_all_stops_every_background_terminal(ctx: ToolContext) -> None:
    pids = []
    for _ in range(2):
        started = await run(ctx, command="echo child=$$; exec sleep 300", is_background=True)
        terminal = terminal_manager(ctx.session).get(started.data["terminal_id"])
        await wait_until(lambda t=terminal: "child=" in t.process.capture.head)
        pids.append(child_pid(terminal.process.capture.head))
    terminal_manager(ctx.session).kill_all()
    for pid in pids:
        await wait_until(lambda p=pid: not pid_alive(p))


@pytest.mark.parametrize("name", ["get_terminal_output", "kill_terminal"])
async def test_unknown_or_missing_terminal_id_is_a_tool_error(ctx: ToolContext, name: str) -> None:
    tool = builtin_registry().get(name)
    with pytest.raises(ToolError, match="No terminal 'term-99'"):
        await tool.invoke({"terminal_id": "term-99"}, ctx)
    with pytest.raises(ToolError, match="`terminal_id` is required"):
        tool.prepare({}, ctx)
    with pytest.raises(ToolError, match="`terminal_id` is required"):
        await tool.invoke({"terminal_id": 3}, ctx)


_EXIT_SCRIPT = """
import asyncio, sys
from pathlib import Path
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import builtin_registry
from agent_tui.tools.terminal_manager import terminal_manager
from agent_tui.tools.terminal_output import OutputCapture

async def main():
    ctx = ToolContext(workspace=Path(sys.argv[1]), session=SessionState())
    tool = builtin_registry().get("run_in_terminal")
    result = await tool.invoke({"command": "echo child=$$; exec sleep 300", "is_background": True}, ctx)
    process = terminal_manager(ctx.session).get(result.data["terminal_id"]).process
    while "child=" not in process.capture.head:
        await asyncio.sleep(0.02)
    print(process.capture.head, flush=True)

asyncio.run(main())  # returns without killing anything: the atexit hook must do it
"""


async def test_background_terminals_die_when_the_app_exits(workspace: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _EXIT_SCRIPT,
        str(workspace),
        stdout=asyncio.subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    stdout, _ = await proc.communicate()
    assert proc.returncode == 0
    pid = child_pid(stdout.decode())
    try:
        await wait_until(lambda: not pid_alive(pid))
    finally:
        if pid_alive(pid):  # the backstop failed: don't leave the sleep behind
            os.kill(pid, signal.SIGKILL)


# -- output capture ---------------------------------------------------------------------------


def test_capture_log_stops_at_its_size_limit(tmp_path: Path) -> None:
    log_path = tmp_path / "t.log"
    with log_path.open("wb") as log:
        capture = OutputCapture(log, head_chars=10, tail_chars=10, log_limit=100)
        for _ in range(10):
            capture.feed(b"x" * 30)
        capture.finish()
    data = log_path.read_bytes()
    assert data.startswith(b"x" * 100 + b"\n[agent-tui: log size limit reached")
    assert data.count(b"x") == 100
    assert capture.total_chars == 300 and capture.truncated


def test_capture_keeps_utf8_split_across_chunks(tmp_path: Path) -> None:
    capture = OutputCapture(None)
    encoded = "naïve ☃\n".encode()
    text = "".join(capture.feed(encoded[i : i + 1]) for i in range(len(encoded)))
    assert text + capture.finish() == "naïve ☃\n"
    assert capture.text() == "naïve ☃\n"


async def test_terminal_logs_are_capped_in_total_size_not_only_in_count(
    ctx: ToolContext, tmp_path: Path
) -> None:
    from agent_tui.tools.terminal_output import MAX_LOG_BYTES, MAX_TOTAL_LOG_BYTES

    logs = tmp_path / "state" / "logs"
    logs.mkdir(parents=True)
    # Twenty full logs from earlier commands (sparse files: their size without the disk space).
    for n in range(20):
        old = logs / f"terminal-2026010{n % 10}-000000-old-{n}.log"
        with old.open("wb") as fh:
            fh.truncate(MAX_LOG_BYTES)
        os.utime(old, (1_000_000 + n, 1_000_000 + n))
    result = await run(ctx, command="echo fresh")
    kept = list(logs.glob("terminal-*.log"))
    assert sum(p.stat().st_size for p in kept) <= MAX_TOTAL_LOG_BYTES
    assert Path(result.data["log_path"]) in kept
    assert not (logs / "terminal-20260100-000000-old-0.log").exists()  # the oldest went first
    assert (logs / "terminal-20260109-000000-old-19.log").exists()
