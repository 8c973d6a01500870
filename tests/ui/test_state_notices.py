"""Damaged state files in the app (issue 10 item 8): the app starts, says which file was moved
aside in one note each, and the moved file is kept for the user."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.prompt_history import history_path
from agent_tui.ui.widgets.notes import Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until


async def test_damaged_tool_picker_and_history_files_are_moved_aside_with_a_note(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "tool_picker.json").write_bytes(b'{"\xff": 1')
    h = make_agent([{"text": "still works"}])
    history = history_path(h.workspace)
    history.parent.mkdir(parents=True)
    history.write_bytes(b'"first"\n"\xfe"\n')
    async with running_app(h.agent) as (app, pilot):

        def damaged() -> list[str]:
            return [n.text for n in app.query(Note) if "was damaged" in n.text]

        await wait_until(pilot, lambda: len(damaged()) == 2, "two notes")
        assert any(t.startswith("tool_picker.json was damaged (not UTF-8)") for t in damaged())
        assert any(".jsonl was damaged (not UTF-8)" in t for t in damaged())
        await send(pilot, "hi")
        await wait_idle(pilot)
    assert len(list(state.glob("tool_picker.json.corrupt-*"))) == 1
    assert len(list(history.parent.glob("*.corrupt-*"))) == 1
    assert history.read_text() == '"hi"\n'  # a new history started
