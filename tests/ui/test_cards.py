"""Tool cards tell the truth (issue 11 §6): a failed command is not a green tick, a denied call
does not say "Running"."""

from __future__ import annotations

import time

from textual.widgets import Static

from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen


def run_call(command: str, call_id: str = "t1") -> dict[str, object]:
    return {"id": call_id, "name": "run_in_terminal", "input": {"command": command}}


def header(card: ToolCard) -> str:
    return str(card.query_one(".header", Static).content)


async def test_non_zero_exit_shows_a_cross_and_the_exit_code(asking_agent: MakeAgent) -> None:
    h = asking_agent(
        [
            {"tool_calls": [run_call("ls does-not-exist", "t1")]},
            {"tool_calls": [run_call("exit 0", "t2")]},
            {"tool_calls": [run_call("kill -9 $$", "t3")]},
            {"text": "done"},
        ],
        builtin=True,
    )
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "list it")
        for _ in range(3):
            await wait_screen(pilot, "ApprovalScreen")
            await pilot.press("y")
        await wait_idle(pilot)
        failed, fine, killed = app.query(ToolCard)
        assert failed.state.status == "failed" and failed.has_class("-failed")
        assert not failed.has_class("-done")
        assert header(failed).startswith("✗ $ Ran `ls does-not-exist`")
        assert "exit code 2" in header(failed)
        assert fine.state.status == "done" and header(fine).startswith("✓")
        assert "exit code" not in header(fine)
        assert killed.state.status == "failed" and "killed by signal 9" in header(killed)


async def test_denied_call_card_says_not_run_instead_of_running(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [run_call("rm -rf build")]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "clean up", "escape", "escape")
        await wait_idle(pilot)
        card = app.query_one(ToolCard)
        assert card.state.status == "denied"
        assert "Running" not in header(card)
        assert header(card).startswith("⊘ $ Not run: rm -rf build")


async def test_a_card_given_its_events_before_it_is_mounted_shows_them_once_mounted() -> None:
    """A resumed turn's cards are drawn off-screen and mounted together: an error's details
    and a running command's ticking tail must survive that."""
    from textual.app import App

    from agent_tui.ui.widgets.tool_card import CardState

    class Host(App[None]):
        pass

    app = Host()
    async with app.run_test() as pilot:
        failed = ToolCard(CardState("c1", "read_file", "read", {"path": "gone.py"}, "Read"))
        failed.set_finished("gone.py: no such file", True, None, "", 0.0)
        running = ToolCard(CardState("c2", "run_in_terminal", "execute", {"command": "make"}))
        running.set_decided(True, "allowed")
        running.append_output("compiling\n")
        await app.screen.mount_all([failed, running])
        await pilot.pause()
        details = failed.query_one(".details", Static)
        assert "gone.py: no such file" in str(details.content) and details.display
        assert running._ticker is not None  # the elapsed time ticks from the mount on
        running.append_output("linking\n")  # drawn by the ticker, at most 10 times a second
        tail = running.query_one(".tail", Static)
        deadline = time.monotonic() + 10
        while "linking" not in str(tail.content) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert "compiling\nlinking" in str(tail.content) and tail.display
