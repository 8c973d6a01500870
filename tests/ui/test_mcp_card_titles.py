"""An MCP tool card ends with a final title (issue 22 §6): one whose call failed says "Failed",
one cancelled with Esc says "Cancelled"; neither keeps "Running…". Against the real fault server."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from agent_tui.ui.widgets.tool_card import ToolCard
from tests.mcp.fault import fault_agentrc
from tests.ui.app_helpers import attach_mcp, running_app, send_to_approval
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import wait_idle, wait_until
from tests.ui.test_mcp_hooks import call


def header(card: ToolCard) -> str:
    return str(card.query_one(".header", Static).content)


async def test_failed_and_cancelled_mcp_cards_do_not_say_running(
    tmp_path: Path, make_agent: MakeAgent, mcp_harnesses: list[Harness]
) -> None:
    fault_agentrc(tmp_path / "home")
    h = make_agent(
        [
            call("mcp_fault_fail", "c1", reason="disk full"),
            {"text": "it failed"},
            call("mcp_fault_hang", "c2"),
            {"text": "never reached"},
        ]
    )
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await wait_until(pilot, lambda: "mcp_fault_hang" in h.agent.deps.tools, "the fault tools")
        await send_to_approval(pilot, "fail please", "y")
        await wait_idle(pilot)
        [failed] = app.query(ToolCard)
        assert failed.state.status == "error"
        assert header(failed).startswith("✗ ") and "Failed: mcp_fault_fail" in header(failed)
        assert "Running" not in header(failed)

        await send_to_approval(pilot, "hang please", "y")
        hanging = app.query(ToolCard)[-1]
        await wait_until(pilot, lambda: hanging.state.status == "running", "the call running")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert "Cancelled: mcp_fault_hang" in header(hanging), header(hanging)
        assert "Running" not in header(hanging)


async def test_a_server_writing_junk_to_stdout_gets_one_note_in_the_app(
    tmp_path: Path, make_agent: MakeAgent, mcp_harnesses: list[Harness]
) -> None:
    """Issue 22 §6: the stray-stdout note `-p` prints is shown in the app too, once per server."""
    from agent_tui.ui.widgets.notes import Note
    from tests.mcp.test_server_faults_e2e import NOISY_SERVER, agentrc, stdio_entry

    agentrc(tmp_path / "home", {"noisy": stdio_entry(NOISY_SERVER, {"NOISY_JUNK": "3"})})
    h = make_agent([{"text": "hi"}])
    attach_mcp(h, mcp_harnesses)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await wait_until(pilot, lambda: "mcp_noisy_echo" in h.agent.deps.tools, "the tools")

        def notes() -> list[str]:
            return [str(n.render()) for n in app.query(Note) if "not JSON-RPC" in str(n.render())]

        await wait_until(pilot, notes, "the stray-output note")
        assert len(notes()) == 1 and "MCP server noisy wrote 3 lines to stdout" in notes()[0]
