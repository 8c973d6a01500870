"""The approval dialog shows the whole call as it is (issue 10 §2, §3).

Driven through the real app on the scripted provider with the built-in terminal and edit tools; the
screen is read back from Textual's compositor (what the terminal would get).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input, TextArea

from agent_tui.approvals.types import Scope
from agent_tui.ui.app import AgentApp
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import terminal_sends, wait_idle, wait_until
from tests.ui.screen_text import region_text, screen_lines, terminal_output

SMALL, LARGE = (80, 24), (120, 40)
ERASE_COMMAND = "rm -rf victim '\x1b[2K\x1b[1G ls -la'"
LONG_COMMAND = "echo " + " ".join(f"step{n:03d}" for n in range(36)) + " ; rm -rf ~/.ssh"


def terminal_call(command: str, call_id: str = "c1") -> dict[str, Any]:
    return {"id": call_id, "name": "run_in_terminal", "input": {"command": command}}


def squeezed(text: str) -> str:
    """``text`` without whitespace: wrapping may break a line at any space."""
    return "".join(text.split())


def dialog_text(app: AgentApp) -> str:
    return region_text(app, app.screen.query_one("#dialog").region)


async def open_dialog(app: AgentApp, pilot: Any) -> None:
    await send_to_approval(pilot, "do it")
    await pilot.pause()


async def deny(pilot: Any) -> None:
    """Answer n, no reason: the turn ends (leaving it open would fail the worker at exit)."""
    await pilot.press("n")
    await pilot.press("enter")
    await wait_idle(pilot)


async def test_escape_sequences_in_a_command_are_shown_not_obeyed(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [terminal_call(ERASE_COMMAND)]}, {"text": "ok"}], builtin=True)
    (h.workspace / "victim").write_text("keep me", encoding="utf-8")
    async with running_app(h.agent, size=LARGE) as (app, pilot):
        await open_dialog(app, pilot)
        shown = dialog_text(app)
        assert "rm -rf victim" in shown
        assert "␛[2K␛[1G ls -la'" in shown
        raw = terminal_output(app)
        assert "\x1b[2K\x1b[1G" not in raw and " ls -la" in raw
        await deny(pilot)
    assert (h.workspace / "victim").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize(
    "attack",
    [
        "echo hi \x1b]0;retitled\x07",  # OSC 0: retitle the terminal
        "echo safe\rrm -rf victim",  # CR: the second half overwrites the first
        "echo \x9b2K hidden",  # C1 CSI
        "echo \u202eeno.hs\u202c ; rm -rf victim",  # bidi override reorders what is shown
        "echo a\u200b\u200b; rm -rf victim",  # zero-width characters
    ],
)
async def test_every_control_character_class_is_visible_in_the_dialog(
    make_agent: MakeAgent, attack: str
) -> None:
    h = make_agent([{"tool_calls": [terminal_call(attack)]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=LARGE) as (app, pilot):
        await open_dialog(app, pilot)
        screen = "\n".join(screen_lines(app))
        for char in "\x1b\x07\r\x9b\u202e\u202c\u200b":
            assert char not in screen
        raw = terminal_output(app)
        assert "\x1b]0;" not in raw and "\x9b" not in raw and "\u202e" not in raw
        assert any(
            mark in dialog_text(app) for mark in ("␛]0;", "␍", "\\x9b", "\\u202e", "\\u200b")
        )
        await deny(pilot)


@pytest.mark.parametrize("size", [SMALL, LARGE])
async def test_a_long_command_is_shown_whole_with_its_tail(
    make_agent: MakeAgent, size: tuple[int, int]
) -> None:
    assert len(LONG_COMMAND) >= 300
    h = make_agent([{"tool_calls": [terminal_call(LONG_COMMAND)]}, {"text": "ok"}], builtin=True)
    app = AgentApp(h.agent)
    async with app.run_test(size=size) as pilot:
        await open_dialog(app, pilot)
        message = app.screen.query_one("#message")
        shown = region_text(app, message.region)
        assert squeezed(LONG_COMMAND) in squeezed(shown)  # every character, the tail included
        assert "rm -rf ~/.ssh" in "\n".join(screen_lines(app)).replace("\n", " ")
        assert message.max_scroll_x == 0  # nothing hidden sideways
        await deny(pilot)


async def test_each_part_of_a_compound_command_says_what_allows_it(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / ".agentrc").write_text(
        '[tools.terminal.auto_approve]\n"git status" = true\n"rm" = false\n', encoding="utf-8"
    )
    command = "git status && ls -la | grep x; rm -f build.log"
    h = make_agent([{"tool_calls": [terminal_call(command)]}, {"text": "ok"}], builtin=True)
    h.agent.deps.approvals.grants.add(Scope.SESSION, "run_in_terminal", "ls")
    async with running_app(h.agent, size=LARGE) as (app, pilot):
        await open_dialog(app, pilot)
        parts = region_text(app, app.screen.query_one("#parts").region)
        lines = [" ".join(line.split()) for line in parts.splitlines()]
        assert lines[0] == "4 parts:"
        assert lines[1].startswith("✓ git status — rule `git status` in ")
        assert lines[2] == "✓ ls -la — granted for this session (`ls`)"
        assert lines[3] == "? grep x — no rule or grant: needs your answer"
        assert lines[4].startswith("! rm -f build.log — always asks: rule `rm` = false in ")
        await deny(pilot)


async def test_a_long_diff_scrolls_inside_the_dialog_and_the_keys_stay_on_screen(
    make_agent: MakeAgent,
) -> None:
    content = "".join(f"line {n}\n" for n in range(1, 61))
    call = {"id": "e1", "name": "create_file", "input": {"path": "long.txt", "content": content}}
    h = make_agent([{"tool_calls": [call]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=SMALL) as (app, pilot):
        await open_dialog(app, pilot)
        screen_region = app.screen.region
        dialog = app.screen.query_one("#dialog").region
        for button in app.screen.query(Button):
            assert screen_region.contains_region(button.region), button.id
            assert dialog.contains_region(button.region), button.id
        message = app.screen.query_one("#message")
        assert message.max_scroll_y > 0  # the diff is longer than the room it has
        assert "+line 60" not in dialog_text(app)
        for _ in range(10):
            await pilot.press("pagedown")
        await pilot.pause()
        assert "+line 60" in dialog_text(app)  # reachable by scrolling the body
        await pilot.press("y")
        await wait_idle(pilot)
    assert (h.workspace / "long.txt").read_text(encoding="utf-8") == content


async def test_the_dialog_diff_is_coloured_as_on_the_card(make_agent: MakeAgent) -> None:
    call = {"id": "e1", "name": "create_file", "input": {"path": "a.txt", "content": "new\n"}}
    h = make_agent([{"tool_calls": [call]}, {"text": "ok"}], builtin=True)
    async with running_app(h.agent, size=LARGE) as (app, pilot):
        await open_dialog(app, pilot)
        dialog = app.screen.query_one("#dialog").region
        rows = app.screen._compositor.render_strips()[dialog.y : dialog.bottom]
        in_dialog = [strip.crop(dialog.x, dialog.right) for strip in rows]
        shown = next(seg for strip in in_dialog for seg in strip if "+new" in seg.text)
        # The waiting card under the dialog shows the same diff: as drawn on the main screen.
        main_rows = app.screen_stack[0]._compositor.render_strips()
        on_card = next(seg for strip in main_rows for seg in strip if "+new" in seg.text)
        assert shown.style is not None and on_card.style is not None
        assert shown.style.color == on_card.style.color  # tool_card.coloured_diff's green
        await deny(pilot)


@pytest.mark.parametrize("key", ["e", "n"], ids=["edit", "deny-reason"])
async def test_keys_typed_fast_after_e_or_n_go_into_the_field_in_order(
    make_agent: MakeAgent, key: str
) -> None:
    """Issue 23 §9: typed in one read with e (or n), the keys after it were lost or reordered:
    the field took the focus only after the keys already queued for the dialog."""
    h = make_agent([{"tool_calls": [terminal_call("echo hi")]}, {"text": "ok"}], builtin=True)
    typed = "a quick brown fox 2"  # a = always allow, y = once, w, s, n: answers if taken
    async with running_app(h.agent, size=SMALL) as (app, pilot):
        await open_dialog(app, pilot)
        await terminal_sends(pilot, key + typed)
        if key == "e":
            editor = app.screen.query_one("#editor", TextArea)
            await wait_until(pilot, lambda: app.focused is editor, "the editor's focus")
            assert editor.text.startswith(typed + "{")  # in order, before the JSON
            await pilot.press("escape", "n", "enter")  # back, deny, no reason
        else:
            reason = app.screen.query_one("#reason", Input)
            await wait_until(pilot, lambda: app.focused is reason, "the reason's focus")
            assert reason.value == typed
            await pilot.press("enter")
        await wait_idle(pilot)
    assert h.agent.deps.approvals.grants.grants() == []  # no letter answered the dialog
    result = str(h.agent.conversation.messages[-2].to_dict())
    assert "declined" in result and (typed in result) == (key == "n")  # the reason, whole
