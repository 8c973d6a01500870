"""One SVG snapshot per screen (pytest-textual-snapshot), 100x32, fixed workspace label.

Update after an intended change with ``pytest tests/ui/test_snapshots.py --snapshot-update`` and
review the SVGs in tests/ui/__snapshots__/ (open them in a browser).
"""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from tests.ui.app_helpers import send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_idle, wait_screen

SIZE = (100, 32)
NOTE_CALL = {"id": "call_1", "name": "write_note", "input": {"path": "notes.txt", "content": "hi"}}
LOOK_CALL = {"id": "call_2", "name": "look_around", "input": {}}
ANSWER = "Wrote `notes.txt`.\n\n```python\ndef greet() -> str:\n    return 'hi'\n```"
USAGE = {"input_tokens": 1200, "output_tokens": 80}


def _app(make_agent: MakeAgent, turns: list[dict[str, Any]]) -> AgentApp:
    return AgentApp(make_agent(turns).agent, workspace_label="~/project", banner=None)


def _steady(pilot: Pilot[Any]) -> None:
    # A blinking cursor would make the snapshot depend on timing.
    pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]


def test_chat_with_tool_cards(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Chat screen. Reviewer should see: the status bar (model, ~/project, "approvals: ask",
    token counts and cost), the user's prompt with a left bar, a collapsed "Thinking" line, a read
    card "✓ ◇ Looked around" with the policy's reason, the text "Now the note.", a green-bordered
    edit card "✓ ✎ Wrote notes.txt" with "allowed by you, once" and a coloured one-line diff (each
    card with a "▶ input and output" toggle), the final Markdown answer with a highlighted Python
    block, the empty prompt with its placeholder, and the footer key hints.
    """

    app = _app(
        make_agent,
        [
            {"thinking": "Look first.", "tool_calls": [LOOK_CALL], "usage": USAGE},
            {"text": "Now the note.", "tool_calls": [NOTE_CALL], "usage": USAGE},
            {"text": ANSWER, "usage": USAGE},
        ],
    )

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await send_to_approval(pilot, "write a note", "y")
        await wait_idle(pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_approval_modal_with_diff(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Approval modal. Reviewer should see: a yellow-bordered dialog titled "Write notes.txt?",
    the diff in a shaded block coloured as on the tool card (+++ bold, @@ cyan, + line green),
    the policy's reason line under it, and one button per answer with its key (y once,
    s session, w workspace, a always, e edit, n deny); the chat (with the waiting tool card)
    dimmed behind it.
    """
    app = _app(make_agent, [{"text": "Writing.", "tool_calls": [NOTE_CALL], "usage": USAGE}])

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await send_to_approval(pilot, "write a note")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_tool_picker(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Tool picker. Reviewer should see: the title with its keys (Space toggles, Enter saves, Esc
    cancels), "2 of 2 tools enabled  ·  the model is sent at most 128", the
    filter box (focused), a "Built-in" group heading and two checked tools (look_around,
    write_note) each followed by its dimmed description.
    """
    app = _app(make_agent, [])

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.press("ctrl+t")
        await wait_screen(pilot, "ToolPickerScreen")
        pilot.app.screen.query_one("#filter").cursor_blink = False  # type: ignore[attr-defined]

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_help(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Help screen. Reviewer should see: a bordered dialog "Help — Esc to close" with a Keys list
    (Enter, Shift+Enter / Ctrl+J, `\\` then Enter, Up / Down, Ctrl+R, [ui] vim, Tab, …, Esc,
    Esc Esc, Ctrl+G…) and a scroll bar: the rest of the keys and the commands are further down.
    """
    app = _app(make_agent, [])

    async def run_before(pilot: Pilot[Any]) -> None:
        _steady(pilot)
        await pilot.press("f1")
        await wait_screen(pilot, "HelpScreen")

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
