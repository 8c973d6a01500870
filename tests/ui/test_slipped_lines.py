"""Lines that slipped (issue 23 §11): command output joined onto one line, "1 lines", and the tool
picker whose Down from the filter went nowhere and whose boxes looked the same on and off."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from agent_tui.checkpoints.restore import UndoReport, describe
from agent_tui.checkpoints.store import TurnRecord
from agent_tui.ui.widgets.checklist import Checklist
from agent_tui.ui.widgets.notes import MarkdownNote, Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until
from tests.ui.screen_text import screen_lines


class NoteApp(App[None]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        yield MarkdownNote(self.text)


async def test_undo_report_keeps_restored_and_cannot_be_undone_on_their_own_lines() -> None:
    report = UndoReport(restored=["calc.py"], untracked_commands=["make build"])
    record = TurnRecord(Path("unused"), "run", turn=1, prompt="fix calc", created=0)
    text = describe(report, [record])
    async with NoteApp(text).run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        rows = [row.strip(" █") for row in screen_lines(pilot.app)]
    restored = next(r for r in rows if "Restored: calc.py" in r)
    assert "Cannot be undone" not in restored
    assert any(r.startswith("Cannot be undone:") for r in rows)


async def test_command_output_lines_stay_lines() -> None:
    # Any command's note: one line of its text is one line on screen, not a joined paragraph.
    async with NoteApp("first line\nsecond line").run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        rows = [row.strip(" █") for row in screen_lines(pilot.app)]
    assert "first line" in rows and "second line" in rows


async def test_copy_of_a_one_line_answer_says_1_line(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": "just one"}])
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "hi")
        await wait_idle(pilot)
        await send(pilot, "/copy")
        await wait_idle(pilot)
        assert "(1 line) to the clipboard" in app.query(Note).last().text


def box_marks(app: App[object]) -> dict[str, str]:
    """Tool name -> the character inside its box, as drawn on screen."""
    marks = {}
    for row in screen_lines(app):
        for name in ("look_around", "write_note"):
            at = row.find(f" {name}")
            if at >= 3 and row[at - 3] == "▐":
                marks[name] = row[at - 2]
    return marks


async def test_tool_picker_down_from_the_filter_reaches_the_list_and_boxes_differ(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        await pilot.press("ctrl+t")
        await wait_screen(pilot, "ToolPickerScreen")
        assert app.screen.focused is app.screen.query_one("#filter")
        await pilot.press("down")
        first = app.screen.query(Checklist).first()
        await wait_until(pilot, lambda: app.screen.focused is first, "the list focused")
        await pilot.press("down", "space")  # the second tool, write_note, off
        await wait_until(
            pilot,
            lambda: box_marks(app) == {"look_around": "✓", "write_note": " "},
            "an on box and an off box drawn differently",
        )
        await pilot.press("escape")
        await wait_screen(pilot, "Screen")
