"""SVG snapshots of the dialogs added for MCP questions, workspace trust and ``/approvals``.

Same size and workspace label as test_snapshots.py. Update after an intended change with
``pytest tests/ui/test_snapshots_dialogs.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.approvals.grants import workspace_key
from agent_tui.mcp.types import InputSpec, SamplingRequest
from agent_tui.ui.app import AgentApp
from agent_tui.ui.screens.elicit import ElicitScreen
from agent_tui.ui.screens.mcp_input import McpInputScreen
from agent_tui.ui.screens.sampling_consent import SamplingConsentScreen
from agent_tui.ui.widgets.elicit_fields import parse_schema
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_screen

SIZE = (100, 32)
FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your full name"},
        "check": {"type": "boolean", "title": "Agree to the terms"},
        "integer": {"type": "integer", "title": "Integer", "minimum": 1, "maximum": 100},
        "pet": {
            "type": "string",
            "title": "Pet",
            "enum": ["cat", "dog"],
            "enumNames": ["Cats", "Dogs"],
            "default": "cat",
        },
    },
    "required": ["name"],
}


def _app(make_agent: MakeAgent) -> AgentApp:
    return AgentApp(make_agent([]).agent, workspace_label="~/project")


def _steady(pilot: Pilot[Any]) -> None:
    pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]


def test_elicitation_form(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Elicitation form. Reviewer should see: a modal "MCP server everything asks:" with the
    server's message, the fields Name * (with its help line and the cursor in its box), a
    "Agree to the terms" checkbox, Integer, a Pet select showing "Cats", then the Submit /
    Decline / Cancel buttons and the hint "* required · Enter or Ctrl+S submits · Esc cancels".
    """

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        screen = ElicitScreen("everything", "Please fill in your details.", parse_schema(FORM))
        await pilot.app.push_screen(screen)
        await pilot.pause()
        screen.query_one("#field-0").cursor_blink = False  # type: ignore[attr-defined]

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)


def test_sampling_consent(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Sampling consent. Reviewer should see: "Server everything wants to use the model:", the
    system prompt and the first lines of the request in muted text ("… (2 more lines)" and the
    token cap), a line saying y allows this request and s, w, a remember it like a tool grant,
    and the approval modal's buttons without Edit: y Allow once, s Session, w Workspace, a Always,
    n Deny.
    """
    text = "\n".join(f"line {n}" for n in range(1, 8))
    request = SamplingRequest(({"role": "user", "content": text},), "Be brief.", 100)

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.app.push_screen(SamplingConsentScreen("everything", request))
        await pilot.pause()

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)


def test_mcp_input_question(snap_compare: Any, make_agent: MakeAgent) -> None:
    """An MCP server's ${input:…} question. Reviewer should see: "MCP server search needs a value
    to start:", the description "Search API key", a one-line input showing six bullets (a password:
    what was typed is hidden), and the hint "Kept for this session only · Enter submits · Esc
    cancels (the server won't start)".
    """
    spec = InputSpec("search-key", "Search API key", password=True)

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.app.push_screen(McpInputScreen("search", spec))
        await pilot.pause()
        field = pilot.app.screen.query_one("#value")
        field.cursor_blink = False  # type: ignore[attr-defined]
        await pilot.press(*"secret")

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)


def test_trust_question(snap_compare: Any, make_agent: MakeAgent, tmp_path: Path) -> None:
    """Trust question at start. Reviewer should see: "Trust the folder ~/project?", the settings
    the folder's .agentrc would apply (tools.auto_approve = true and a terminal rule), the warning
    about trusting only known folders (they can approve calls, start programs, and send requests
    and the API key elsewhere), and the y Trust / n Don't trust buttons.
    """
    (tmp_path / "ws" / ".agentrc").write_text(
        '[tools]\nauto_approve = true\n[tools.terminal.auto_approve]\n"npm test" = true\n',
        encoding="utf-8",
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await wait_screen(pilot, "TrustScreen")

    assert snap_compare(_app(make_agent), terminal_size=SIZE, run_before=run_before)


def test_approvals_screen(snap_compare: Any, make_agent: MakeAgent, tmp_path: Path) -> None:
    """/approvals. Reviewer should see: "Remembered approvals" over a table with the columns
    scope, tool, pattern, granted (UTC): a workspace grant for run_in_terminal `git status` (the
    highlighted row) and an always grant for fetch_webpage on https://docs.python.org, with the
    hint "d / Delete revokes the highlighted approval · Esc closes".
    """
    app = _app(make_agent)
    grants = [
        {
            "id": "a1b2c3d4",
            "scope": "workspace",
            "tool": "run_in_terminal",
            "pattern": "git status",
            "workspace": workspace_key(tmp_path / "ws"),
            "granted_at": "2026-01-02T03:04:05+00:00",
        },
        {
            "id": "e5f6a7b8",
            "scope": "always",
            "tool": "fetch_webpage",
            "pattern": "https://docs.python.org",
            "workspace": None,
            "granted_at": "2026-02-03T04:05:06+00:00",
        },
    ]
    (tmp_path / "state").mkdir(exist_ok=True)
    (tmp_path / "state" / "approvals.json").write_text(
        json.dumps({"version": 1, "grants": grants}), encoding="utf-8"
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await send(pilot, "/approvals")
        await wait_screen(pilot, "ApprovalsScreen")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
