"""Notifications when the terminal is not focused: bell, or OSC 9 / OSC 777 (issue 17, item 8)."""

from __future__ import annotations

import pytest
from textual import events

from agent_tui.ui.app import AgentApp
from agent_tui.ui.notify import MAX_CHARS, notification_sequence
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_idle, wait_screen

NOTE_CALL = {"id": "call_1", "name": "write_note", "input": {"path": "n.txt", "content": "hi"}}
HOSTILE = "done\x07\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x1b\\; rm -rf ~\x9c" + "x" * 500


def _capture(app: AgentApp) -> list[str]:
    written: list[str] = []
    driver = app._driver
    assert driver is not None
    real_write = driver.write
    driver.write = lambda data: (written.append(data), real_write(data))[1]  # type: ignore[method-assign]
    return written


async def _run(make_agent: MakeAgent, mode: str, focused: bool) -> str:
    h = make_agent([{"text": HOSTILE}])
    h.agent.deps.config.raw.setdefault("ui", {})["notify"] = mode
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        written = _capture(app)
        if not focused:
            app.post_message(events.AppBlur())
            await pilot.pause()
            assert not app.app_focus
        # Submitted without a key press: a key tells Textual the terminal has focus again.
        await app.submit("hello")
        await wait_idle(pilot)
        return "".join(written)


@pytest.mark.parametrize("focused", [True, False])
async def test_desktop_notification_only_when_away_and_never_carries_escapes(
    make_agent: MakeAgent, focused: bool
) -> None:
    written = await _run(make_agent, "desktop", focused)
    osc9 = [part for part in written.split("\x1b]9;")[1:]]
    if focused:
        assert osc9 == []
        return
    assert len(osc9) == 1
    body = osc9[0].split("\x1b\\")[0]
    assert body.startswith("agent-tui: done")
    assert len(body) <= len("agent-tui: ") + MAX_CHARS
    assert not any(ch in body for ch in "\x07\x1b\x9c;")
    assert "\x1b]52" not in written and "pwned\x1b" not in written


async def test_bell_when_away(make_agent: MakeAgent) -> None:
    assert "\a" in await _run(make_agent, "bell", focused=False)
    assert "\a" not in await _run(make_agent, "off", focused=False)


@pytest.mark.parametrize(
    "env", [{"TERM": "rxvt-unicode"}, {"TERM": "xterm-256color", "VTE_VERSION": "7600"}]
)
def test_osc777_for_its_terminals_with_the_field_separator_removed(env: dict[str, str]) -> None:
    sequence = notification_sequence("desktop", "a;b\x1b\\c\x07", env)
    assert sequence.startswith("\x1b]777;notify;agent-tui;") and sequence.endswith("\x1b\\")
    body = sequence.removeprefix("\x1b]777;notify;agent-tui;").removesuffix("\x1b\\")
    assert ";" not in body and "\x1b" not in body and "\x07" not in body


async def test_approval_waiting_notifies_when_away(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "Writing.", "tool_calls": [NOTE_CALL]}, {"text": "ok"}])
    h.agent.deps.config.raw.setdefault("ui", {})["notify"] = "desktop"
    async with running_app(h.agent, size=(100, 30)) as (app, pilot):
        written = _capture(app)
        app.post_message(events.AppBlur())
        await pilot.pause()
        await app.submit("write a note")
        await wait_screen(pilot, "ApprovalScreen")
        assert "\x1b]9;agent-tui: approve write_note?" in "".join(written)
