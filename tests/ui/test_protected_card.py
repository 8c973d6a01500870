"""Pilot: a protected path in the app (issue 10 item 7). Under --yolo the write happens and the
card says it was a protected path; under an allow-all edit rule the app asks, naming the path."""

from __future__ import annotations

from textual.widgets import Static

from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.config import load_config
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle

MCP_CALL = {
    "id": "call_1",
    "name": "write_note",
    "input": {"path": ".mcp.json", "content": '{"mcpServers": {}}'},
}


async def test_yolo_card_says_the_path_was_protected(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [MCP_CALL]}, {"text": "Done."}])
    h.agent.deps.approvals = ApprovalEngine(h.agent.deps.config, h.workspace, yolo=True)
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "add a server")
        await wait_idle(pilot)
        card = app.query_one(ToolCard)
        assert (h.workspace / ".mcp.json").exists()
        assert card.state.decided == (
            "allowed: --yolo, although .mcp.json is a protected path (`.mcp.json`)"
        )


async def test_allow_all_rule_still_asks_for_a_protected_path(make_agent: MakeAgent) -> None:
    h = make_agent([{"tool_calls": [MCP_CALL]}, {"text": "Done."}])
    rc = h.workspace.parent / "home" / ".agentrc"
    rc.write_text('[tools.edits.auto_approve]\n"**" = true\n')
    config = load_config(h.workspace, env={}, user_file=rc)
    h.agent.deps.approvals = ApprovalEngine(config, h.workspace)
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "add a server")
        shown = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert ".mcp.json is a protected path" in shown
        await pilot.press("n")
        await pilot.press("enter")
        await wait_idle(pilot)
        assert not (h.workspace / ".mcp.json").exists()
