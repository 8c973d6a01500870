"""``/terminals`` lists the session's background terminals and kills one (issue 17 §3).

Real background processes started by run_in_terminal (``is_background``) on the scripted provider;
a kill must leave no process of the terminal alive (checked in /proc through ``group_alive``).
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Button, DataTable, Label

from agent_tui.tools.terminal_manager import TerminalManager, terminal_manager
from agent_tui.tools.terminal_process import group_alive
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.terminals import TerminalsScreen
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


def background(command: str, call_id: str) -> dict[str, Any]:
    return {
        "id": call_id,
        "name": "run_in_terminal",
        "input": {"command": command, "is_background": True},
    }


def agent_with_terminals(make_agent: MakeAgent, *commands: str) -> Harness:
    calls = [background(command, f"t{n}") for n, command in enumerate(commands, 1)]
    h = make_agent([{"tool_calls": calls}, {"text": "started"}], builtin=True)
    h.agent.deps.approvals.yolo = True
    return h


def manager_of(h: Harness) -> TerminalManager:
    return terminal_manager(h.agent.deps.session)


def rows(screen: TerminalsScreen) -> list[list[str]]:
    table = screen.query_one(DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


async def test_terminals_lists_them_and_k_or_the_button_kills_the_real_process(
    make_agent: MakeAgent,
) -> None:
    h = agent_with_terminals(make_agent, "sleep 300", "sleep 301 & sleep 302")
    app = AgentApp(h.agent)
    async with app.run_test(size=(110, 32)) as pilot:
        await send(pilot, "start two")
        await wait_idle(pilot)
        first, second = manager_of(h).terminals()
        assert group_alive(first.process.pid) and group_alive(second.process.pid)
        await send(pilot, "/terminals")
        await wait_screen(pilot, "TerminalsScreen")
        screen = app.screen
        assert isinstance(screen, TerminalsScreen)
        listed = rows(screen)
        assert [r[0] for r in listed] == ["term-1", "term-2"]
        assert [r[1] for r in listed] == ["running", "running"]
        assert listed[1][3] == "sleep 301 & sleep 302"
        log = str(screen.query_one("#log", Label).content)
        assert log == f"log: {first.log_path}"

        await pilot.press("down")
        assert str(screen.query_one("#log", Label).content) == f"log: {second.log_path}"
        await pilot.press("k")  # the second: its shell and both sleeps
        await wait_until(pilot, lambda: rows(screen)[1][1] == "killed", "term-2 killed")
        assert not group_alive(second.process.pid) and not second.process.anything_alive()
        assert group_alive(first.process.pid)  # only the selected one
        assert rows(screen)[0][1] == "running"

        await pilot.press("up")
        await pilot.click("#kill")
        await wait_until(pilot, lambda: rows(screen)[0][1] == "killed", "term-1 killed")
        assert not first.process.anything_alive()

        await pilot.press("escape")
        await wait_screen(pilot, "Screen")


async def test_terminals_without_any_says_so(make_agent: MakeAgent) -> None:
    h = make_agent([], builtin=True)
    app = AgentApp(h.agent)
    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "/terminals")
        await wait_screen(pilot, "TerminalsScreen")
        screen = app.screen
        assert str(screen.query_one("#empty", Label).content) == "No background terminals."
        assert not screen.query_one(DataTable).display
        assert screen.query_one("#kill", Button).disabled
        await pilot.press("k")  # nothing to kill: nothing happens
        await pilot.press("escape")
        await wait_screen(pilot, "Screen")
        assert h.provider.requests == []  # a local command: no model call


# A command written to look like something else: escapes, CR, bidi, C1, zero-width, a newline.
HOSTILE_COMMANDS = [
    "sleep 300 # \x1b[2K\x1b]0;title\x07",
    "sleep 301 # \rrm -rf ~",
    "sleep 302 # \u202eevil\u200b",
    "sleep 303 # \x9b31m\nsecond line",
]


async def test_terminals_shows_hostile_command_text_visibly(make_agent: MakeAgent) -> None:
    h = agent_with_terminals(make_agent, *HOSTILE_COMMANDS)
    app = AgentApp(h.agent)
    async with app.run_test(size=(110, 32)) as pilot:
        await send(pilot, "start them")
        await wait_idle(pilot)
        await send(pilot, "/terminals")
        await wait_screen(pilot, "TerminalsScreen")
        assert isinstance(app.screen, TerminalsScreen)
        commands = [r[3] for r in rows(app.screen)]
        assert commands == [
            "sleep 300 # ␛[2K␛]0;title␇",
            "sleep 301 # ␍rm -rf ~",
            "sleep 302 # \\u202eevil\\u200b",
            "sleep 303 # \\x9b31m second line",
        ]
        await pilot.press("escape")
        await h.agent.aclose()  # what quitting does: the sleeps must not outlive the test
