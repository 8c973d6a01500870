"""MCP in the app (issue 15 §5), against the real fault server (tests/mcp/servers/fault_server.py):
a request sent while a server starts waits for it (bounded) with "MCP: N starting…" in the status
bar; tools over the 128 limit are named; a URL-mode elicitation shows the URL and asks first."""

from __future__ import annotations

import os
import stat
import webbrowser
from pathlib import Path

import pytest

from agent_tui.ui.screens.elicit_url import ElicitUrlScreen
from agent_tui.ui.widgets.notes import Note
from tests.mcp.fault import fault_agentrc
from tests.ui.app_helpers import attach_mcp, call_server_tool, running_app
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until
from tests.ui.test_chat import tool_results
from tests.ui.test_mcp_hooks import call


async def test_a_request_sent_while_a_server_starts_waits_for_its_tools(
    tmp_path: Path, make_agent: MakeAgent, mcp_harnesses: list[Harness]
) -> None:
    # A generous wait (the default is 5 s): this machine may be slow to start Python servers.
    fault_agentrc(tmp_path / "home", mcp="startup_wait_s = 60", env={"FAULT_START_DELAY": "2"})
    h = make_agent([{"text": "ok"}])
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 30)) as (app, pilot):
        await wait_until(pilot, lambda: app.status.mcp_starting == 1, "the starting count")
        assert "MCP: 1 starting…" in str(app.status.render())
        await send(pilot, "use the fault tools")
        await wait_idle(pilot)
        assert app.status.mcp_starting == 0
        offered = [spec.name for spec in h.provider.requests[0].tools]
        assert "mcp_fault_hang" in offered


async def test_a_server_still_starting_after_the_wait_is_named_and_the_request_goes(
    tmp_path: Path, make_agent: MakeAgent, mcp_harnesses: list[Harness]
) -> None:
    fault_agentrc(
        tmp_path / "home",
        mcp="startup_wait_s = 0.2\nconnect_timeout_s = 120",
        env={"FAULT_START_DELAY": "100"},
    )
    h = make_agent([{"text": "ok"}])
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 30)) as (app, pilot):
        await wait_until(pilot, lambda: app.status.mcp_starting == 1, "the starting count")
        await send(pilot, "go")
        await wait_idle(pilot)
        notes = [str(n.text) for n in app.query(Note)]
        assert any("1 MCP server still starting after 0.2 s (fault)" in n for n in notes), notes
        assert not any(s.name.startswith("mcp_") for s in h.provider.requests[0].tools)


async def test_tools_over_the_limit_are_named_in_a_note(
    tmp_path: Path, make_agent: MakeAgent, mcp_harnesses: list[Harness]
) -> None:
    fault_agentrc(tmp_path / "home", env={"FAULT_TOOLS": "200"})
    h = make_agent([{"text": "ok"}])
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 30)) as (app, pilot):

        def capped() -> list[str]:
            return [str(n.text) for n in app.query(Note) if "not offered" in str(n.text)]

        await wait_until(pilot, capped, "the over-the-limit note")
        [note] = capped()
        # 2 test tools + 208 of the server's: 82 left out, named from the first one cut.
        # The harness has no tool_search: the tools past the limit are named, as before it.
        assert note.startswith(
            "82 tools of 210 not offered to the model (it takes at most 128, and tool_search is off)"
        )
        assert "mcp_fault_t118, mcp_fault_t119" in note and "and 52 more" in note


@pytest.mark.parametrize("key", ["o", "n"])
async def test_url_elicitation_shows_the_url_and_opens_it_only_when_asked(
    tmp_path: Path,
    make_agent: MakeAgent,
    mcp_harnesses: list[Harness],
    monkeypatch: pytest.MonkeyPatch,
    key: str,
) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(browser.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("BROWSER", str(browser))
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read $BROWSER afresh
    fault_agentrc(tmp_path / "home")
    h = make_agent([call("mcp_fault_open_url", "c1"), {"text": "done"}])
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await call_server_tool(pilot, h, "mcp_fault_open_url", "sign me in", "ElicitUrlScreen")
        screen = app.screen
        assert isinstance(screen, ElicitUrlScreen)
        assert screen.url == "https://example.test/signin?x=1"
        assert "https://example.test/signin?x=1" in str(screen.query_one("#url").render())
        await pilot.press(key)
        await wait_idle(pilot)
    result = tool_results(h.agent)[0].content
    if key == "o":
        assert "url elicitation: accept" in result
        assert opened.read_text().strip() == "https://example.test/signin?x=1"
    else:
        assert "url elicitation: decline" in result
        assert not opened.exists()
    assert os.environ["BROWSER"] == str(browser)
