"""The approval dialog says what s / w / a will allow, and `x` narrows it to the exact command."""

from __future__ import annotations

from textual.widgets import Static

from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen


def _ls(call_id: str, command: str) -> dict[str, object]:
    return {"id": call_id, "name": "run_in_terminal", "input": {"command": command}}


async def test_x_grants_only_this_exact_command(asking_agent: MakeAgent) -> None:
    h = asking_agent(
        [{"tool_calls": [_ls("c1", "ls -la")]}, {"text": "one"},
         {"tool_calls": [_ls("c2", "ls -la")]}, {"text": "two"},
         {"tool_calls": [_ls("c3", "ls -la src")]}, {"text": "three"}],
        builtin=True,
    )  # fmt: skip
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "list")
        line = app.screen.query_one("#pattern", Static)
        assert "`ls` with any arguments, except options that write files or run programs" in str(
            line.content
        )
        assert "x: only this exact command" in str(line.content)
        await pilot.press("x")
        assert "s / w / a allow exactly `ls -la`" in str(line.content)
        await pilot.press("s")
        await wait_idle(pilot)
        await send(pilot, "again")  # the same command: granted for the session
        await wait_idle(pilot)
        assert app.screen is app.screen_stack[0]
        await send(pilot, "other")  # other arguments: the grant does not cover them
        await wait_screen(pilot, "ApprovalScreen")
        await pilot.press("n")
        await pilot.press("escape")
        await wait_idle(pilot)


async def test_the_grant_line_wraps_and_keeps_every_button_at_80x24(make_agent: MakeAgent) -> None:
    call = _ls("c1", "git log --oneline -5 && ls -la src && find . -name '*.py'")
    h = make_agent([{"tool_calls": [call]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=(80, 24)) as (app, pilot):
        await send_to_approval(pilot, "go")
        line = app.screen.query_one("#pattern", Static)
        text = str(line.content)
        assert "`git log` or `ls` with any arguments" in text
        assert "exactly `find . -name '*.py'`" in text  # find: a prefix grant would allow -delete
        dialog = app.screen.query_one("#dialog").content_region
        assert line.region.height > 1 and line.region.right <= dialog.right  # wrapped, not cut
        for button in app.screen.query("#buttons > Button"):
            assert button.region.width > 0 and dialog.y <= button.region.y < dialog.bottom
        await pilot.press("n")
        await pilot.press("escape")
        await wait_idle(pilot)
