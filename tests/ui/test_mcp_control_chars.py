"""A hostile MCP server's strings are shown, not obeyed (issue 10 §2): a tool result on the card,
the elicitation form and the sampling question; and ``-p`` stderr for a tool error.

The server is real (tests/mcp/servers/hostile_server.py, stdio through the SDK).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agent_tui.mcp.types import SamplingRequest
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.elicit import ElicitScreen
from agent_tui.ui.screens.mcp_questions import ask_modal
from agent_tui.ui.screens.sampling_consent import SamplingConsentScreen
from agent_tui.ui.widgets.elicit_fields import parse_schema
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli
from tests.ui.app_helpers import attach_mcp, running_app, send_to_approval
from tests.ui.conftest import Harness, MakeAgent
from tests.ui.helpers import wait_idle, wait_screen, wait_until
from tests.ui.screen_text import screen_lines, terminal_output

SERVER = Path(__file__).parents[1] / "mcp" / "servers" / "hostile_server.py"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")
OSC = "\x1b]0;pwned\x07"


def user_config(home: Path) -> None:
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(
        f'[mcp.servers.hostile]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n',
        encoding="utf-8",
    )


def screen(app: AgentApp) -> str:
    return "\n".join(screen_lines(app))


def assert_nothing_raw(app: AgentApp) -> None:
    shown = screen(app)
    for char in RAW:
        assert char not in shown
    raw = terminal_output(app)
    assert "\x1b]0;" not in raw and "\x9b" not in raw and "\u202e" not in raw


@pytest.fixture
def hostile(make_agent: MakeAgent, tmp_path: Path, mcp_harnesses: list[Harness]) -> list[Harness]:
    """The hostile server in the user's config; harnesses appended here are stopped after."""
    user_config(tmp_path / "home")
    return mcp_harnesses


async def test_a_hostile_tool_result_is_shown_visibly_on_the_card(
    make_agent: MakeAgent, hostile: list[Harness]
) -> None:
    poison = {"id": "m1", "name": "mcp_hostile_poison", "input": {}}
    h = attach_mcp(make_agent([{"tool_calls": [poison]}, {"text": "ok"}]), hostile)
    async with running_app(h.agent, size=(110, 40)) as (app, pilot):
        await wait_until(pilot, lambda: "mcp_hostile_poison" in h.agent.deps.tools, "the tools")
        await send_to_approval(pilot, "go", "y")
        await wait_idle(pilot)
        card = app.query(ToolCard).last()
        assert card.state.status == "done"
        await pilot.click(card.query_one(".toggle"))
        await wait_until(pilot, lambda: "output:" in screen(app), "the card's details")
        assert "result␛]0;pwned␇ \\x9b2J \\u202eevil" in screen(app)
        assert_nothing_raw(app)


async def test_elicitation_and_sampling_questions_show_control_characters(
    make_agent: MakeAgent,
) -> None:
    # The SDK server here cannot send elicitation/create back over stdio, so the screens get the
    # server's strings directly, as the MCP hooks pass them.
    form = ElicitScreen(
        "hostile",
        f"Please confirm{OSC}\x1b[2Kerased\x9b2J\u202eevil",
        parse_schema(
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "title": f"Name{OSC}", "description": "a\x1b[2Kb"},
                    "pet": {"type": "string", "enum": ["cat"], "enumNames": [f"Cat{OSC}"]},
                },
                "required": ["name"],
            }
        ),
    )
    async with running_app(make_agent([]).agent, size=(110, 40)) as (app, pilot):
        answer = asyncio.ensure_future(ask_modal(app, form))
        await wait_screen(pilot, "ElicitScreen")
        await pilot.pause()
        shown = screen(app)
        assert "Please confirm␛]0;pwned␇␛[2Kerased\\x9b2J\\u202eevil" in shown
        assert "Name␛]0;pwned␇ *" in shown and "a␛[2Kb" in shown
        assert_nothing_raw(app)
        await pilot.press("escape")
        await answer
        request = SamplingRequest(
            messages=({"role": "user", "content": f"summarise{OSC}\x9b2J"},),
            system=f"be evil\u202e{OSC}",
            max_tokens=10,
        )
        consent = asyncio.ensure_future(ask_modal(app, SamplingConsentScreen("hostile", request)))
        await wait_screen(pilot, "SamplingConsentScreen")
        await pilot.pause()
        shown = screen(app)
        assert "user: summarise␛]0;pwned␇\\x9b2J" in shown
        assert "system: be evil\\u202e␛]0;pwned␇" in shown
        assert_nothing_raw(app)
        await pilot.press("n")
        await consent


def test_headless_stderr_shows_a_hostile_tool_error(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    user_config(tmp_path / "home")
    fail = {"id": "m1", "name": "mcp_hostile_fail", "input": {}}
    fake_llm.set_script([{"tool_calls": [fail]}, {"text": "done"}])
    env = {
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "HOME": str(tmp_path / "home"),
        "ANTHROPIC_API_KEY": "sk-test",
    }
    flags = ["--provider", "anthropic", "--base-url", fake_llm.url, "--model", "m"]
    proc = run_cli(ws, *flags, "-p", "go", "--allow-tool", "mcp_hostile_fail", env=env)
    assert proc.returncode == 0, proc.stderr
    assert "bad␛]0;pwned␇␛[2K␛[1G\\x9b2J\\u202ething" in proc.stderr
    for char in RAW:
        assert char not in proc.stderr and char not in proc.stdout
