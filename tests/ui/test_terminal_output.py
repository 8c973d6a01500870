"""``/terminals``, Enter: a background terminal's output, scrollable and following (issue 27 §7).

A real background command (run_in_terminal with ``is_background``) prints colours, hostile
control sequences and more lines than fit; the view shows them from the terminal's log, follows
what comes later while scrolled to the end and stays put while scrolled up.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import RichLog

from agent_tui.front.terminal_output import OutputReader
from agent_tui.tools.terminal_manager import terminal_manager
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.terminal_output import TerminalOutputScreen
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until
from tests.ui.test_live_output import FrozenClock
from tests.ui.test_terminals_screen import agent_with_terminals


def printing(lines: int) -> str:
    """Colours, a retitle and a clear screen, ``lines`` numbered lines, then more once the test
    creates ``release``."""
    return (
        r"printf '\033[31mred\033[0m plain\n'; printf 'evil \033]0;title\007\033[2J end\n'; "
        f"for i in $(seq 1 {lines}); do echo line $i; done; "
        "while [ ! -f release ]; do sleep 0.05; done; echo after release; sleep 300"
    )


def texts(view: RichLog) -> list[str]:
    return [strip.text for strip in view.lines]


async def open_output(app: AgentApp, pilot: Any, h: Harness) -> TerminalOutputScreen:
    await send(pilot, "start it")
    await wait_idle(pilot)
    await send(pilot, "/terminals")
    await wait_screen(pilot, "TerminalsScreen")
    await pilot.press("enter")
    await wait_screen(pilot, "TerminalOutputScreen")
    screen = app.screen
    assert isinstance(screen, TerminalOutputScreen)
    return screen


async def test_output_view_shows_colours_makes_controls_visible_and_follows(
    make_agent: MakeAgent,
) -> None:
    h = agent_with_terminals(make_agent, printing(60))
    app = AgentApp(h.agent)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_output(app, pilot, h)
        view = screen.query_one(RichLog)
        await wait_until(pilot, lambda: "line 60" in texts(view), "the first output")
        lines = texts(view)
        assert lines[:2] == ["red plain", "evil ␛]0;title␇␛[2J end"]
        red = [s.style for s in view.lines[0] if s.text == "red"]
        assert red and red[0] is not None and red[0].color is not None
        assert red[0].color.number == 1  # SGR 31
        await pilot.pause()
        assert view.is_vertical_scroll_end and view.max_scroll_y > 0  # following the end

        view.scroll_home(animate=False)  # the person scrolls up to read
        await pilot.pause()
        (h.workspace / "release").touch()
        await wait_until(pilot, lambda: "after release" in texts(view), "the later output")
        await pilot.pause()
        assert view.scroll_offset.y == 0  # scrolled up, it stays put

        await pilot.press("end")  # and End follows again
        await wait_until(pilot, lambda: view.is_vertical_scroll_end, "the end")
        assert "running" in str(screen.query_one("#title").render())

        await pilot.press("k")
        await wait_until(
            pilot, lambda: "killed" in str(screen.query_one("#title").render()), "kill"
        )
        await pilot.press("escape")
        await wait_screen(pilot, "TerminalsScreen")


def test_reader_starts_a_long_log_near_its_end_and_keeps_split_characters(tmp_path: Any) -> None:
    log = tmp_path / "terminal.log"
    log.write_bytes(b"x" * 300_000 + "é".encode()[:1])
    reader = OutputReader(log)
    first = reader.read()
    assert reader.skipped == 300_000 - 256 * 1024 + 1 and len(first) == 256 * 1024 - 1
    with log.open("ab") as more:
        more.write("é".encode()[1:] + b"\n")
    assert reader.read() == "é\n"  # the two halves of one character, read apart
    assert reader.read() == ""


def test_reader_of_a_missing_or_special_log_reads_nothing(tmp_path: Any) -> None:
    assert OutputReader(tmp_path / "gone.log").read() == ""
    (tmp_path / "link.log").symlink_to("/etc/passwd")
    assert OutputReader(tmp_path / "link.log").read() == ""


def test_terminal_output_snapshot(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Reviewer should see, at 80x24, the output dialog: the title "term-1 · running · 12 s · $
    printf …" on one line (cut with "…"), then "red plain" with "red" in red, "evil
    ␛]0;title␇␛[2J end" (the screen not cleared, the window not retitled), "line 1" to "line 8",
    and the keys hint."""
    h = agent_with_terminals(make_agent, printing(8))
    app = AgentApp(h.agent, workspace_label="~/project")
    clock = app.clock = FrozenClock()

    async def run_before(pilot: Any) -> None:
        pilot.app.query_one("PromptInput").cursor_blink = False
        await send(pilot, "start it")
        await wait_idle(pilot)
        terminal = terminal_manager(h.agent.deps.session).terminals()[0]
        clock.now = terminal.process.started + 12.2
        await send(pilot, "/terminals")
        await wait_screen(pilot, "TerminalsScreen")
        await pilot.press("enter")
        await wait_screen(pilot, "TerminalOutputScreen")
        view = app.screen.query_one(RichLog)
        await wait_until(pilot, lambda: "line 8" in texts(view), "the output")
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
    finally:
        terminal_manager(h.agent.deps.session).kill_all()
