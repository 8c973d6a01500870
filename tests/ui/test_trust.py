"""Workspace trust in the TUI (issue 4 §5): asked once, stored, applied at once (no restart)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from agent_tui.approvals.trust import trust_answer
from agent_tui.mcp.session import create_mcp
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.trust import gated_settings
from agent_tui.ui.widgets.notes import MarkdownNote, Note
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.mcp.conftest import DYNAMIC_SERVER
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import screen_name, send, wait_idle, wait_screen, wait_until

AUTO_APPROVE = "[tools]\nauto_approve = true\n"


def write_call(n: int) -> dict[str, Any]:
    call = {"id": f"call_{n}", "name": "write_note", "input": {"path": f"{n}.txt", "content": "x"}}
    return {"tool_calls": [call]}


def script(calls: int) -> list[dict[str, Any]]:
    return [turn for n in range(1, calls + 1) for turn in (write_call(n), {"text": f"done {n}"})]


async def asked_or_done(pilot: Pilot[Any]) -> bool:
    """Wait until the turn finishes or asks for approval; True if it asked."""
    app: Any = pilot.app
    await wait_until(
        pilot,
        lambda: screen_name(pilot) == "ApprovalScreen" or not app.busy,
        "an approval question or the end of the turn",
    )
    return screen_name(pilot) == "ApprovalScreen"


def notes(app: AgentApp) -> list[str]:
    return [note.text for note in app.query(Note)]


async def test_asked_once_yes_applies_auto_approve_at_once(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text(AUTO_APPROVE, encoding="utf-8")
    h = make_agent(script(1))
    assert h.agent.deps.config.ignored_untrusted == ("tools",)
    async with running_app(h.agent) as (app, pilot):
        await wait_screen(pilot, "TrustScreen")
        shown = str(app.screen.query_one("#settings Static", Static).content)
        assert shown == "tools.auto_approve = true"
        assert app.status.approval_mode == "ask"
        await pilot.press("y")
        await wait_until(pilot, lambda: app.status.approval_mode == "auto", "trust applied")
        assert "Applied this folder's [tools] settings." in notes(app)
        await send(pilot, "write")
        assert not await asked_or_done(pilot)  # auto_approve now applies: no question
        assert (h.workspace / "1.txt").read_text() == "x"
        assert "auto_approve" in app.query_one(ToolCard).state.decided
    assert trust_answer(h.workspace) is True

    # A second session in the same folder: not asked again, and the stored yes applies.
    h2 = make_agent(script(1))
    app2 = AgentApp(h2.agent)
    async with app2.run_test(size=(100, 32)) as pilot:
        await wait_until(pilot, lambda: app2.status.approval_mode == "auto", "stored trust")
        assert screen_name(pilot) != "TrustScreen"
        await send(pilot, "write")
        assert not await asked_or_done(pilot)


async def test_no_keeps_asking_and_is_remembered(make_agent: MakeAgent, tmp_path: Path) -> None:
    (tmp_path / "ws" / ".agentrc").write_text(AUTO_APPROVE, encoding="utf-8")
    h = make_agent(script(1))
    async with running_app(h.agent) as (app, pilot):
        await wait_screen(pilot, "TrustScreen")
        await pilot.press("n")
        await wait_until(pilot, lambda: screen_name(pilot) != "TrustScreen", "the answer")
        await send(pilot, "write")
        assert await asked_or_done(pilot)  # the folder's auto_approve stays off
        await pilot.press("y")
        await wait_idle(pilot)
        assert app.status.approval_mode == "ask"
    assert trust_answer(h.workspace) is False

    h2 = make_agent(script(1))
    app2 = AgentApp(h2.agent)
    async with app2.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        assert screen_name(pilot) != "TrustScreen"
        assert any("/trust on applies them" in text for text in notes(app2))
        await send(pilot, "write")
        assert await asked_or_done(pilot)
        await pilot.press("y")
        await wait_idle(pilot)


async def test_escape_decides_later_and_stores_nothing(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text(AUTO_APPROVE, encoding="utf-8")
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await wait_screen(pilot, "TrustScreen")
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen_name(pilot) != "TrustScreen", "the modal to close")
    assert trust_answer(h.workspace) is None


async def test_trust_command_applies_at_once_and_keeps_session_grants(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text(AUTO_APPROVE, encoding="utf-8")
    h = make_agent(script(2))
    async with running_app(h.agent) as (app, pilot):
        await wait_screen(pilot, "TrustScreen")
        await pilot.press("escape")
        await send(pilot, "write")
        assert await asked_or_done(pilot)
        await pilot.press("s")  # a session grant for write_note
        await wait_idle(pilot)
        engine = h.agent.deps.approvals

        await send(pilot, "/trust on")
        await wait_until(pilot, lambda: app.status.approval_mode == "auto", "/trust on applied")
        assert h.agent.deps.approvals is not engine and h.agent.deps.config.trusted
        assert not any("restart" in text.lower() for text in notes(app))
        await send(pilot, "/trust off")
        await wait_until(pilot, lambda: app.status.approval_mode == "ask", "/trust off applied")
        assert not h.agent.deps.config.trusted

        await send(pilot, "write again")
        assert not await asked_or_done(pilot)  # untrusted again, but the session grant stays
        assert "granted" in app.query(ToolCard).last().state.decided
    assert trust_answer(h.workspace) is False


SERVER = {"command": sys.executable, "args": [str(DYNAMIC_SERVER)]}


async def test_trusting_starts_the_servers_of_the_folders_mcp_json(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"dyn": SERVER}}), encoding="utf-8"
    )
    h = make_agent([])
    deps = h.agent.deps
    # As build_agent does: a manager (no servers yet: the folder is untrusted) for the JSON file.
    deps.mcp = create_mcp(deps.config, deps.tools, deps.commands)
    assert deps.mcp is not None and deps.mcp.servers == {} and deps.mcp.notices
    app = AgentApp(h.agent)
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_screen(pilot, "TrustScreen")
            shown = str(app.screen.query_one("#settings Static", Static).content)
            assert shown == ".mcp.json: its MCP servers (they run commands on this machine)"
            await pilot.press("y")
            await wait_until(pilot, lambda: "mcp_dyn_shout" in deps.tools, "the server's tools")
            assert "Starting MCP server dyn." in notes(app)
            assert deps.mcp.notices == []  # no more "not started, not trusted" notice

            await send(pilot, "/trust off")  # the folder's server stops, its tools go
            await wait_until(pilot, lambda: "mcp_dyn_shout" not in deps.tools, "tools withdrawn")
            await wait_idle(pilot)
            assert "Stopped MCP server dyn." in notes(app) and deps.mcp.servers == {}
    finally:
        await deps.mcp.aclose()


async def test_trusting_creates_the_mcp_manager_for_agentrc_servers(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".agentrc").write_text(
        f"[mcp.servers.rc]\ncommand = {json.dumps(SERVER['command'])}\n"
        f"args = {json.dumps(SERVER['args'])}\n",
        encoding="utf-8",
    )
    h = make_agent([])
    deps = h.agent.deps
    assert deps.mcp is None and deps.config.ignored_untrusted == ("mcp",)
    app = AgentApp(h.agent)
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_screen(pilot, "TrustScreen")
            shown = str(app.screen.query_one("#settings Static", Static).content)
            assert shown.startswith("mcp.servers.rc.command = ")
            await pilot.press("y")
            await wait_until(pilot, lambda: "mcp_rc_shout" in deps.tools, "the server's tools")
            assert deps.mcp is not None and deps.mcp.hooks.on_elicit is not None
            assert deps.references.get("mcp") is not None  # #mcp: references work too
            await send(pilot, "/mcp")
            await wait_idle(pilot)
            assert "rc" in app.query(MarkdownNote).last().text
    finally:
        if deps.mcp is not None:
            await deps.mcp.aclose()


async def test_a_broken_mcp_json_is_reported_and_nothing_changes(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    (tmp_path / "ws" / ".mcp.json").write_text("{not json", encoding="utf-8")
    h = make_agent([])
    deps = h.agent.deps
    deps.mcp = create_mcp(deps.config, deps.tools, deps.commands)  # untrusted: file not read
    config = deps.config
    async with running_app(h.agent) as (app, pilot):
        await wait_screen(pilot, "TrustScreen")
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: any(t.startswith("Could not apply") for t in notes(app)),
            "the error note",
        )
        assert ".mcp.json" in next(t for t in notes(app) if t.startswith("Could not apply"))
        assert deps.config is config and not deps.config.trusted


def test_gated_settings_lists_leaves_and_caps_lines(tmp_path: Path) -> None:
    rules = "\n".join(f'"cmd{n}" = true' for n in range(20))
    (tmp_path / ".agentrc").write_text(
        f"[tools]\nauto_approve = true\n[tools.terminal.auto_approve]\n{rules}\n", encoding="utf-8"
    )
    lines = gated_settings(tmp_path, ("tools",), [".vscode/mcp.json"])
    assert lines[0] == "tools.auto_approve = true"
    assert lines[1] == "tools.terminal.auto_approve.cmd0 = true"
    assert len(lines) == 14 and lines[-1] == "... and 9 more"
    (tmp_path / ".agentrc").write_text("not [ toml", encoding="utf-8")
    assert gated_settings(tmp_path, ("mcp",), []) == ["[mcp]"]
