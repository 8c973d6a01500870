"""SVG snapshots of the approval dialog at the smallest supported size, 80×24 (issue 10 §3).

Update after an intended change with
``pytest tests/ui/test_snapshots_approval.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from agent_tui.ui.app import AgentApp
from tests.ui.app_helpers import send_to_approval
from tests.ui.conftest import MakeAgent

SIZE = (80, 24)
COMMAND = (
    "git status && echo " + " ".join(f"step{n:03d}" for n in range(30)) + " ; rm -rf ~/.ssh"
    " '\x1b[2K\x1b[1G ls -la'"
)


def _app(make_agent: MakeAgent, call: dict[str, Any]) -> AgentApp:
    h = make_agent([{"tool_calls": [call]}, {"text": "ok"}], builtin=True)
    return AgentApp(h.agent, workspace_label="~/project")


async def _open(pilot: Pilot[Any]) -> None:
    pilot.app.query_one("PromptInput").cursor_blink = False  # type: ignore[attr-defined]
    await send_to_approval(pilot, "do it")
    await pilot.pause()


def test_approval_command_80x24(snap_compare: Any, make_agent: MakeAgent, tmp_path: Path) -> None:
    """Terminal command at 80×24. Reviewer should see: the dialog filling the screen, titled "Run
    command in terminal?"; the whole command in a shaded block, wrapped over several lines and
    ending "; rm -rf ~/.ssh '␛[2K␛[1G ls -la'" (the ESCs drawn as ␛, nothing cut at the right
    edge); under it "3 parts:" with a green ✓ for `git status` (rule in ~/.agentrc) and the body's
    scrollbar; at the bottom, always visible, the grant line and the key row y s w a e n.
    """
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / ".agentrc").write_text(
        '[tools.terminal.auto_approve]\n"git status" = true\n', encoding="utf-8"
    )
    call = {"id": "c1", "name": "run_in_terminal", "input": {"command": COMMAND}}
    assert snap_compare(_app(make_agent, call), terminal_size=SIZE, run_before=_open)


def test_approval_long_diff_80x24(snap_compare: Any, make_agent: MakeAgent) -> None:
    """A 60-line new file at 80×24. Reviewer should see: "Create long.txt?", the diff coloured as
    on the tool card (--- / +++ bold, @@ cyan, + lines green) filling the body with a scrollbar
    (lines past the first dozen or so are reached by scrolling), and the key row y s w a e n
    still on screen at the bottom of the dialog.
    """
    content = "".join(f"line {n}\n" for n in range(1, 61))
    call = {"id": "e1", "name": "create_file", "input": {"path": "long.txt", "content": content}}
    assert snap_compare(_app(make_agent, call), terminal_size=SIZE, run_before=_open)


@pytest.mark.usefixtures("typing_guard")
def test_approval_while_typing_80x24(snap_compare: Any, make_agent: MakeAgent) -> None:
    """Opened while the person types (issue 22 §1; the snapshot clock never moves, so it stays
    unarmed). Reviewer should see: "Write notes.txt?" with its one-line diff, and at the bottom,
    in place of the key row y s w a e n, the line "⌨ Keys are ignored while you type — waiting
    for a pause" in the warning colour; no button is shown or focused; "so what", typed as it
    opened, in the prompt under the dialog.
    """
    call = {"id": "c1", "name": "write_note", "input": {"path": "notes.txt", "content": "hi"}}

    async def open_and_type(pilot: Pilot[Any]) -> None:
        await _open(pilot)
        await pilot.press(*"so what")  # held: they go to the prompt, not to the dialog
        await pilot.pause()

    assert snap_compare(_app(make_agent, call), terminal_size=SIZE, run_before=open_and_type)
