"""Snapshots of live command output (issue 17 §3): a running card and the ``/terminals`` list, 100x32.

The app's clock is frozen (``AgentApp.clock``), so the elapsed times are fixed without sleeping.
Update after an intended change with ``--snapshot-update`` for this file and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.tools.terminal_manager import terminal_manager
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until
from tests.ui.test_live_output import HOLD, FrozenClock

SIZE = (100, 32)


def run_call(command: str, call_id: str, background: bool = False) -> dict[str, Any]:
    command_input: dict[str, Any] = {"command": command}
    if background:
        command_input["is_background"] = True
    return {"id": call_id, "name": "run_in_terminal", "input": command_input}


def test_running_command_card(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: a card "… $ Running `for i in 1 2 3 4 5 6 7; do …` · 12 s" allowed by
    --yolo, then the last five lines of its output, "step 3" to "step 7", one per line; the
    status bar says "● working 12 s", as the card.
    """
    command = f'for i in 1 2 3 4 5 6 7; do echo "step $i"; done; {HOLD}'
    h = make_agent([{"tool_calls": [run_call(command, "t1")]}, {"text": "done"}], builtin=True)
    h.agent.deps.approvals.yolo = True
    app = AgentApp(h.agent, workspace_label="~/project")
    clock = app.clock = FrozenClock()

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await send(pilot, "count to seven")
        await wait_until(pilot, lambda: app.query(ToolCard), "the card")
        card = app.query_one(ToolCard)
        await wait_until(
            pilot, lambda: card.live and card.live.tail.lines()[-1:] == ["step 7"], "output"
        )
        clock.now += 12.3
        tail = card.query_one(".tail", Static)
        await wait_until(pilot, lambda: "step 7" in str(tail.content), "the redraw")
        app.status.refresh()  # the bar redraws on a 1 s timer; the frozen clock has moved now
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        (h.workspace / "release").touch()


def test_terminals_screen(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see: the "Background terminals" dialog with term-1 "running" for
    "1 min 15 s" (`sleep 300`), term-2 "exited 3" (`exit 3`), term-3 "running" whose command shows
    its escape sequence as "␛[2K" and its newline as a space; the first row highlighted, its log
    path below, a red "Kill (k)" button and the keys hint.
    """
    calls = [
        run_call("sleep 300", "t1", background=True),
        run_call("exit 3", "t2", background=True),
        run_call("sleep 301 # \x1b[2Kclean\nrm -rf ~", "t3", background=True),
    ]
    h = make_agent([{"tool_calls": calls}, {"text": "Started three."}], builtin=True)
    h.agent.deps.approvals.yolo = True
    app = AgentApp(h.agent, workspace_label="~/project")
    clock = app.clock = FrozenClock()

    async def run_before(pilot: Pilot[Any]) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
        await send(pilot, "start them")
        await wait_idle(pilot)
        first, exited, _ = terminals = terminal_manager(h.agent.deps.session).terminals()
        await wait_until(pilot, lambda: exited.status() == "exited 3", "exit 3 to exit")
        clock.now = first.process.started + 75.95
        for terminal in terminals:  # the real ones hold a temp dir and the time of day
            terminal.log_path = Path("~/.local/state/agent-tui/logs") / (
                f"terminal-20261124-101500-bg-{terminal.terminal_id[-1]}.log"
            )
        await send(pilot, "/terminals")
        await wait_screen(pilot, "TerminalsScreen")
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
    finally:
        terminal_manager(h.agent.deps.session).kill_all()
