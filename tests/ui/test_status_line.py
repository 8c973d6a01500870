"""``[ui] status_line``: a real script gets the session's state as JSON and its first line is shown.

The scripts are Python, written the way Claude Code's docs write theirs (``json.load(sys.stdin)``,
``data['model']['display_name']``, ``data['workspace']['current_dir']``), run by the app as a user's
would be: through the shell, with the key variables hidden (``key_env``).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from rich.style import Style
from rich.text import Text

from agent_tui import key_env
from agent_tui.agent.resume import attach_app
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.status_line import CommandStatusLine
from tests.fakes.llm_server import FakeLLM
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until

# Claude Code's Python example, plus a colour, the mode agent-tui adds, a hidden variable and
# control sequences that must not reach the terminal (retitle the window, clear the screen).
CLAUDE_STYLE = r"""
import json, os, sys
data = json.load(sys.stdin)
model = data['model']['display_name']
current_dir = os.path.basename(data['workspace']['current_dir'])
with open(sys.argv[1], 'a') as runs:
    runs.write(data['agent_tui']['mode'] + '\n')
secret = os.environ.get('SL_TEST_SECRET', 'hidden')
print(f"[\x1b[32m{model}\x1b[0m] {current_dir} · {data['agent_tui']['mode']} · "
      f"{data['cost']['total_cost_usd']} · {secret}\x1b]0;pwned\x07\x1b[2J")
print("second line, never shown")
"""

SECRET = "SL_TEST_SECRET"


def with_status_line(make_agent: MakeAgent, tmp_path: Path, command: str) -> Harness:
    """An agent whose user ``.agentrc`` (``make_agent``'s HOME) sets ``[ui] status_line``."""
    rc = tmp_path / "home" / ".agentrc"
    rc.write_text(f"[ui]\nstatus_line = {command!r}\n", encoding="utf-8")
    return make_agent([{"text": "hello"}])


def running(pid: int) -> bool:
    """Whether ``pid`` is alive (a zombie is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def shown(line: CommandStatusLine) -> Text:
    content = line.content
    assert isinstance(content, Text)
    return content


def script(tmp_path: Path, source: str) -> str:
    path = tmp_path / "statusline.py"
    path.write_text(source, encoding="utf-8")
    return f"{sys.executable} {path} {tmp_path / 'runs.txt'}"


async def test_a_claude_code_script_gets_the_state_and_its_first_line_is_shown(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET, "s3cret")
    key_env.hide([SECRET])  # as an api_key_env name would be
    h = with_status_line(make_agent, tmp_path, script(tmp_path, CLAUDE_STYLE))
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 24)) as pilot:
        line = app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: line.runs == 1, "the first run")
        model = h.agent.model.name
        text = shown(line)
        assert text.plain == f"[{model}] ws · ask · 0.0 · hidden␛]0;pwned␇␛[2J"
        green = [s for s in text.spans if Style.normalize(str(s.style)) == "color(2)"]  # SGR 32
        assert [text.plain[s.start : s.end] for s in green] == [model]
        assert line.display

        await pilot.press("shift+tab")  # the mode changes: the next second runs it again
        await wait_until(pilot, lambda: line.runs == 2, "a run for the new mode")
        mode = h.agent.deps.approvals.mode_word()
        assert mode != "ask" and f" · {mode} · " in shown(line).plain

        line.tick()  # nothing changed since: no run
        assert not line._command_running and line.runs == 2
    assert (tmp_path / "runs.txt").read_text().splitlines() == ["ask", mode]


async def test_a_failing_script_shows_its_error_once(make_agent: MakeAgent, tmp_path: Path) -> None:
    failing = "import sys; sys.stdin.read(); sys.stderr.write('no jq here\\x1b[2J\\n'); sys.exit(3)"
    h = with_status_line(make_agent, tmp_path, script(tmp_path, failing))
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 24)) as pilot:
        line = app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: line.runs == 1, "the first run")
        error = "status line command failed (exit 3): no jq here␛[2J"
        assert shown(line).plain == error
        assert line.has_class("-error")
        updates: list[Any] = []
        line.update = updates.append  # type: ignore[method-assign]
        await pilot.press("shift+tab")
        await wait_until(pilot, lambda: line.runs == 2, "the run for the new mode")
        assert updates == []  # the same error again: shown once


async def test_the_app_stays_live_while_the_command_runs_and_closing_kills_it(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A timeout as short as the next test's would race the key presses on a loaded machine.
    monkeypatch.setattr("agent_tui.status_line.TIMEOUT_S", 120.0)
    pid_file = tmp_path / "pid"
    h = with_status_line(make_agent, tmp_path, f"echo $$ > {pid_file}; exec sleep 60")
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 24)) as pilot:
        line = app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: pid_file.exists() and pid_file.read_text(), "its start")
        await pilot.press("h", "i")  # keys go through while the command runs
        assert app.prompt_input.text == "hi" and line.runs == 0
        pid = int(pid_file.read_text())
        assert running(pid)
    # The app closed mid-run: the command went with it (killed; a zombie at most until reaped).
    deadline = time.monotonic() + 10
    while running(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not running(pid)


async def test_a_slow_script_is_killed_at_its_timeout(
    make_agent: MakeAgent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agent_tui.status_line.TIMEOUT_S", 1.0)
    pid_file = tmp_path / "pid"
    h = with_status_line(make_agent, tmp_path, f"echo $$ > {pid_file}; exec sleep 60")
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 24)) as pilot:
        line = app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: line.runs == 1, "the timeout")
        assert shown(line).plain == "status line command timed out after 1 s"
        pid = int(pid_file.read_text())
        assert not Path(f"/proc/{pid}").exists()  # killed and reaped
        await pilot.press("o", "k")
        assert app.prompt_input.text == "ok"


async def test_without_a_command_nothing_runs_and_nothing_shows(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "hello"}])
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        line = app.query_one(CommandStatusLine)
        assert not line.display and line.runs == 0


def test_a_workspace_sets_a_command_only_once_trusted(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / ".agentrc").write_text('[ui]\nstatus_line = "touch pwned"\n', encoding="utf-8")
    untrusted = load_config(workspace, env={}, user_file=tmp_path / "none")
    trusted = load_config(workspace, env={}, user_file=tmp_path / "none", trusted=True)
    assert untrusted.section("ui", "status_line") is None
    assert "ui.status_line" in untrusted.ignored_untrusted
    assert trusted.section("ui", "status_line") == "touch pwned"


def test_status_line_snapshot(snap_compare: Any, make_agent: MakeAgent, tmp_path: Path) -> None:
    """Reviewer should see, at 80x24, under the prompt and above the footer, the script's line:
    "[" then the model's name in green then "] ws · ask · 0.0 · hidden" and the hostile sequences
    as "␛]0;pwned␇␛[2J" (the screen is not cleared)."""
    h = with_status_line(make_agent, tmp_path, script(tmp_path, CLAUDE_STYLE))
    app = AgentApp(h.agent, workspace_label="~/project")

    async def run_before(pilot: Any) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False
        line = pilot.app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: line.runs == 1, "the first run")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


# What a cost-and-context script reads once a turn has been answered (Claude Code's field names).
AFTER_A_TURN = r"""
import json, os, sys
data = json.load(sys.stdin)
cost, window = data["cost"], data["context_window"]
saved = os.path.exists(data["transcript_path"]) and bool(data["session_id"])
print(f"${cost['total_cost_usd']:.4f} in={window['total_input_tokens']} "
      f"out={window['total_output_tokens']} used={window['used_percentage']}% saved={saved}")
"""


async def test_a_turn_with_usage_runs_it_again_with_the_cost_and_the_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "Hi.", "usage": {"input_tokens": 2000, "output_tokens": 100}}])
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")  # the fake server takes any key
    workspace = tmp_path / "ws"
    workspace.mkdir()
    rc = tmp_path / ".agentrc"
    rc.write_text(f"[ui]\nstatus_line = {script(tmp_path, AFTER_A_TURN)!r}\n", encoding="utf-8")
    layer = {
        "model": {"provider": "anthropic", "name": "claude-sonnet-4-5", "base_url": fake_llm.url}
    }
    config = load_config(workspace, cli=layer, env={"ANTHROPIC_API_KEY": "k"}, user_file=rc)
    agent = build_agent(config)
    session = attach_app(agent, cont=False, resume_id=None)  # a session file, as the CLI does
    app = AgentApp(agent, session=session)
    async with app.run_test(size=(100, 24)) as pilot:
        line = app.query_one(CommandStatusLine)
        await wait_until(pilot, lambda: line.runs == 1, "the first run")
        assert shown(line).plain == "$0.0000 in=0 out=0 used=0.0% saved=False"
        await send(pilot, "hello")
        await wait_idle(pilot)
        # 2,000 in and 100 out at $3 / $15 a million; the prompt is 1% of the 200k window. The
        # session file may appear a moment before the usage: a run for each, one a second.
        after = "$0.0075 in=2000 out=100 used=1.0% saved=True"
        await wait_until(pilot, lambda: shown(line).plain == after, "the run after the turn")
        assert 2 <= line.runs <= 3
