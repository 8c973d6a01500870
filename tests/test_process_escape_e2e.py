"""Processes a command detaches do not outlive `agent-tui -p` (issue 10, item 9).

Each command starts `sleep 300` so that nothing ties it to the command any more (nohup, setsid, a
double fork, `env -i`, both) with its output away from our pipe, writes the pid to a file and
returns. The app is a child subreaper: the orphans are reparented to it and killed at its exit.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, last_json, run_on_fake

# The subreaper, for commands outside the sandbox (inside, a PID namespace ends them).
pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="the subreaper is Linux-only (prctl)"
    ),
    pytest.mark.usefixtures("unsandboxed"),
]

QUIET = "> /dev/null 2>&1"
# Each writes its sleep's pid to pid.txt; the command returns at once, the sleep lives on.
ESCAPES = {
    "nohup": f"nohup sleep 300 {QUIET} & echo $! > pid.txt",
    "setsid": f"setsid sleep 300 {QUIET} & echo $! > pid.txt",
    "double_fork": f"( sleep 300 {QUIET} & echo $! > pid.txt ) &",
    "env_i": f"env -i sleep 300 {QUIET} & echo $! > pid.txt",
    "env_i_setsid_double_fork": (
        f"env -i setsid sh -c 'sleep 300 {QUIET} & echo $! > pid.txt' {QUIET} &"
    ),
}
# The command waits for the file, so the pid is written before the command (and app) ends.
WAIT_FOR_PID = "\nuntil [ -s pid.txt ]; do sleep 0.02; done"


def gone_or_zombie_within(pid: int, timeout: float) -> bool:
    """Whether the process ends within ``timeout``: a pidfd becomes readable when it exits."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout)
        return bool(readable)
    finally:
        os.close(fd)


def run_commands(tmp_path: Path, fake_llm: FakeLLM, *calls: dict[str, object]) -> str:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"id": f"c{i}", "name": name, "input": args}]}
        for i, (name, args) in enumerate((c["name"], c["input"]) for c in calls)
    ]
    fake_llm.set_script([*turns, {"text": "done"}])
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "start it",
        "--output-format",
        "json",
        "--yolo",
        home=tmp_path,
        state=tmp_path / "state",
    )
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    assert not any(c["is_error"] for c in result["tool_calls"]), result
    return (ws / "pid.txt").read_text().strip()


@pytest.mark.parametrize("command", ESCAPES.values(), ids=ESCAPES.keys())
def test_detached_processes_do_not_outlive_the_app(
    tmp_path: Path, fake_llm: FakeLLM, command: str
) -> None:
    call = {"name": "run_in_terminal", "input": {"command": command + WAIT_FOR_PID}}
    pid = int(run_commands(tmp_path, fake_llm, call))
    try:
        assert gone_or_zombie_within(pid, 10), f"{command!r}: pid {pid} outlived agent-tui"
    finally:
        if not gone_or_zombie_within(pid, 0):
            os.kill(pid, 9)  # the failing case must not leave a sleep behind


# A background terminal that detaches a sleep from everything (env -i + setsid + its parent gone:
# only the subreaper still knows it), then either keeps running or finishes at once.
DETACH_AND_STAY = f"{ESCAPES['env_i_setsid_double_fork']}{WAIT_FOR_PID}; exec sleep 300"
DETACH_AND_FINISH = ESCAPES["setsid"]


@pytest.mark.parametrize(
    "background", [DETACH_AND_STAY, DETACH_AND_FINISH], ids=["running", "finished"]
)
def test_kill_terminal_takes_the_escaped_processes_and_reaps_them(
    tmp_path: Path, fake_llm: FakeLLM, background: str
) -> None:
    probe = (
        'p=$(cat pid.txt); if [ -e /proc/$p ]; then grep "^State" /proc/$p/status; '
        "else echo gone; fi"
    )
    # kill_terminal waits behind tool_search (issue 26); offered up front here.
    (tmp_path / ".agentrc").write_text('[tools]\nalways_offer = ["kill_terminal"]\n')
    pid = int(
        run_commands(
            tmp_path,
            fake_llm,
            {"name": "run_in_terminal", "input": {"command": background, "is_background": True}},
            # Wait (in the app) until the detached sleep exists, then kill the terminal.
            {"name": "run_in_terminal", "input": {"command": "until [ -s pid.txt ]; do :; done"}},
            {"name": "kill_terminal", "input": {"terminal_id": "term-1"}},
            {"name": "run_in_terminal", "input": {"command": probe}},
        )
    )
    try:
        killed = json.dumps(fake_llm.requests[3]["messages"][-1])
        assert "Killed terminal term-1" in killed or "killed the processes it left" in killed
        probe_result = json.dumps(fake_llm.requests[4]["messages"][-1])
        # Killed with its terminal (not only at exit), and reaped: no zombie left behind.
        assert "gone" in probe_result, probe_result
    finally:
        if not gone_or_zombie_within(pid, 0):
            os.kill(pid, 9)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_terminated_app_takes_the_detached_processes_along(
    tmp_path: Path, fake_llm: FakeLLM, signum: int
) -> None:
    # The command detaches a sleep and then keeps the app busy; the app is ended by a signal
    # (`kill`, or its terminal closing), whose default action skips Python's exit handlers.
    ws = tmp_path / "ws"
    ws.mkdir()
    command = f"{ESCAPES['setsid']}{WAIT_FOR_PID}\necho $$ > shell.txt; exec sleep 300"
    call = {"id": "c", "name": "run_in_terminal", "input": {"command": command}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "done"}])
    env = clean_env(
        {
            "HOME": str(tmp_path),
            "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
            "ANTHROPIC_API_KEY": "k",
        }
    )
    argv = ["-p", "go", "--provider", "anthropic", "--base-url", fake_llm.url, "--yolo"]
    app = subprocess.Popen(
        [sys.executable, "-m", "agent_tui", *argv],
        cwd=ws,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pids: list[int] = []
    try:
        pids.append(int(wait_for_file(ws / "pid.txt", app)))
        pids.append(int(wait_for_file(ws / "shell.txt", app)))
        app.send_signal(signum)
        assert app.wait(timeout=30) == -signum  # it still ends by that signal
        for pid in pids:
            assert gone_or_zombie_within(pid, 10), f"pid {pid} outlived agent-tui ({signum})"
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
        for pid in pids:
            if not gone_or_zombie_within(pid, 0):
                os.kill(pid, 9)


def wait_for_file(path: Path, app: subprocess.Popen[bytes], timeout: float = 60) -> str:
    """The file's content once written (polled: the app gives no event for it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and app.poll() is None:
        text = path.read_text().strip() if path.is_file() else ""
        if text:
            return text
        time.sleep(0.02)
    raise AssertionError(f"{path} was not written (app exit code {app.poll()})")


def test_adopted_orphans_are_reaped_not_left_as_zombies(tmp_path: Path, fake_llm: FakeLLM) -> None:
    # A detached process outlives its command blocked on a FIFO; the next command lets it finish.
    # The app adopted it (its parent is the app, not PID 1), and once it exits the app collects
    # it: no zombie children pile up in a long session.
    detach = (
        "mkfifo go; env -i setsid sh -c 'echo $$ > pid.txt; cat go' > /dev/null 2>&1 &"
        f"{WAIT_FOR_PID}"
    )
    release = (
        "p=$(cat pid.txt); echo \"parent $(awk '/^PPid/ {print $2}' /proc/$p/status) app $PPID\"; "
        "echo > go; "
        # Until it has exited: gone, or a zombie.
        "while [ -e /proc/$p ] && ! grep -q '^State:.Z' /proc/$p/status; do :; done"
    )
    zombies = (
        "for s in /proc/[0-9]*/status; do "
        'if grep -q "^PPid:.$PPID$" $s && grep -q "^State:.Z" $s; then echo "zombie $s"; fi; '
        "done; echo checked"
    )
    pid = int(
        run_commands(
            tmp_path,
            fake_llm,
            {"name": "run_in_terminal", "input": {"command": detach}},
            {"name": "run_in_terminal", "input": {"command": release}},
            {"name": "run_in_terminal", "input": {"command": zombies}},
        )
    )
    released = json.dumps(fake_llm.requests[2]["messages"][-1])
    parent, app = re.search(r"parent (\d+) app (\d+)", released).groups()  # type: ignore[union-attr]
    assert parent == app, released  # adopted by the app
    probed = json.dumps(fake_llm.requests[3]["messages"][-1])
    assert "checked" in probed and "zombie" not in probed, probed
    assert gone_or_zombie_within(pid, 0)
