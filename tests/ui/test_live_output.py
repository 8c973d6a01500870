"""A running command's card shows its last lines and elapsed time as they come (issue 17 §3).

Real subprocesses through run_in_terminal on the scripted provider; the app's clock is frozen and
moved by hand, so what is drawn when depends on the output and the clock, not on timing. A command
holds itself open until the test creates ``release`` in the workspace.
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.ui.app import AgentApp
from agent_tui.ui.terminal_tail import REDRAW_INTERVAL_S
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until

HOLD = "while [ ! -e release ]; do sleep 0.02; done"


class FrozenClock:
    """Monotonic seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def command_agent(make_agent: MakeAgent, command: str) -> Harness:
    call = {"id": "t1", "name": "run_in_terminal", "input": {"command": command}}
    h = make_agent([{"tool_calls": [call]}, {"text": "done"}], builtin=True)
    h.agent.deps.approvals.yolo = True  # what is tested is the card, not the approval dialog
    return h


def shown_tail(card: ToolCard) -> str:
    tail = card.query_one(".tail", Static)
    return str(tail.content) if tail.display else ""


def header(card: ToolCard) -> str:
    return str(card.query_one(".header", Static).content).replace("\u00a0", " ")


async def command_card(pilot: Pilot[Any], prompt: str) -> ToolCard:
    """Send ``prompt`` and return the card of the command the model runs for it."""
    await send(pilot, prompt)
    await wait_until(pilot, lambda: pilot.app.query(ToolCard), "the card")
    return pilot.app.query_one(ToolCard)


def tail_after_a_tick(card: ToolCard, clock: FrozenClock) -> str:
    """The tail as drawn once the clock has moved one redraw interval (each look lets it redraw)."""
    clock.now += REDRAW_INTERVAL_S
    return shown_tail(card)


async def test_lines_printed_apart_stay_on_their_own_lines(make_agent: MakeAgent) -> None:
    # Each line its own chunk of output: the card used to run them together ("line 1line 2").
    h = command_agent(make_agent, f"for i in 1 2 3; do echo line $i; sleep 0.05; done; {HOLD}")
    app = AgentApp(h.agent)
    clock = app.clock = FrozenClock()
    async with app.run_test(size=(100, 32)) as pilot:
        card = await command_card(pilot, "count")
        await wait_until(pilot, lambda: "line 3" in tail_after_a_tick(card, clock), "line 3")
        assert shown_tail(card).splitlines() == ["line 1", "line 2", "line 3"]
        (h.workspace / "release").touch()
        await wait_idle(pilot)


async def test_running_card_shows_the_last_lines_and_the_elapsed_time(
    make_agent: MakeAgent,
) -> None:
    long_line = "x" * 300
    h = command_agent(
        make_agent, f"for i in $(seq 1 30); do echo line $i; done; echo {long_line}; {HOLD}"
    )
    app = AgentApp(h.agent)
    clock = app.clock = FrozenClock()
    async with app.run_test(size=(100, 32)) as pilot:
        card = await command_card(pilot, "count")
        await wait_until(pilot, lambda: header(card).endswith("· 0 s"), "the elapsed time")
        assert "Running `for i in" in header(card)
        live = card.live
        assert live is not None
        await wait_until(pilot, lambda: live.tail.lines()[-1:] == [long_line], "all output")
        clock.now += 12.4
        await wait_until(pilot, lambda: "· 12 s" in header(card), "12 s in the header")
        # One line per line of output (chunks used to run together), the last 5, still running.
        assert shown_tail(card).splitlines() == [
            "line 27",
            "line 28",
            "line 29",
            "line 30",
            long_line,
        ]
        assert card.state.status == "running"
        tail = card.query_one(".tail", Static)
        # Laid out on the next refresh (its size is 0x0 until then: seen in CI under load).
        await wait_until(pilot, lambda: tail.size.height > 0, "the tail laid out")
        assert tail.size.height == 5  # the long line is cut to the card's width, not wrapped
        assert tail.size.width < len(long_line)
        (h.workspace / "release").touch()
        await wait_idle(pilot)
        assert card.state.status == "done"
        assert header(card).startswith("✓ $ Ran `for i in")
        assert "· " not in header(card)  # no elapsed time once finished
        assert shown_tail(card) == ""


async def test_a_burst_of_output_is_drawn_at_most_once_per_interval(make_agent: MakeAgent) -> None:
    # ~230 KB, more than a 64 KiB pipe holds: it arrives in several chunks however fast it is read.
    h = command_agent(
        make_agent, f'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "line $i"; done; {HOLD}'
    )
    app = AgentApp(h.agent)
    clock = app.clock = FrozenClock()
    async with app.run_test(size=(100, 32)) as pilot:
        card = await command_card(pilot, "burst")
        await wait_until(pilot, lambda: card.live is not None, "the command to start")
        live = card.live
        assert live is not None
        await wait_until(pilot, lambda: live.tail.lines()[-1:] == ["line 20000"], "all output")
        # Every chunk was kept, none was drawn: the clock has not moved since the card was drawn.
        assert live.chunks >= 4
        assert live.redraws == 1
        assert "line 20000" not in shown_tail(card)
        clock.now += REDRAW_INTERVAL_S
        await wait_until(pilot, lambda: "line 20000" in shown_tail(card), "the next redraw")
        assert live.redraws == 2  # one redraw for the whole burst
        for _ in range(5):  # nothing new: the ticker does not redraw
            await pilot.pause(REDRAW_INTERVAL_S)
        assert live.redraws == 2
        (h.workspace / "release").touch()
        await wait_idle(pilot)


HOSTILE_OUTPUT = (
    r"printf 'a\033]0;pwned\007b\n'; "  # OSC: retitle the window
    r"printf 'c\033[2Kd\n'; "  # CSI: erase the line
    r"printf 'e\rf\n'; "  # CR: overwrite the start of the line
    r"printf 'g\342\200\256h\n'; "  # U+202E RIGHT-TO-LEFT OVERRIDE
    r"printf 'i\302\233j\n'; "  # C1 CSI (U+009B)
)


async def test_escape_sequences_in_the_output_show_visibly_in_the_tail(
    make_agent: MakeAgent,
) -> None:
    h = command_agent(make_agent, HOSTILE_OUTPUT + HOLD)
    app = AgentApp(h.agent)
    clock = app.clock = FrozenClock()
    async with app.run_test(size=(100, 32)) as pilot:
        card = await command_card(pilot, "print")
        await wait_until(
            pilot, lambda: tail_after_a_tick(card, clock).count("\n") == 4, "the whole tail"
        )
        assert shown_tail(card).splitlines() == [
            "a␛]0;pwned␇b",
            "c␛[2Kd",
            "e␍f",
            "g\\u202eh",
            "i\\x9bj",
        ]
        (h.workspace / "release").touch()
        await wait_idle(pilot)
