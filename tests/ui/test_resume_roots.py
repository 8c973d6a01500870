"""Extra roots survive a resume in the app (issue 27 item 2): the folders `/add-dir` added are back
after `--continue` (the model reads there unasked, `/status` lists them), and one that vanished in
between is left out with a warning in the transcript, never silently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from agent_tui.agent.resume import attach_app
from agent_tui.ui.widgets.notes import MarkdownNote, Note
from tests.ui.app_helpers import running_app, send_turns
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_until

TEXT = "resumed-root-text-3307"


async def test_roots_added_with_add_dir_come_back_and_a_vanished_one_is_said(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for folder in (kept, gone):
        folder.mkdir()
    (kept / "notes.txt").write_text(TEXT + "\n")
    first = make_agent([{"text": "hi"}], builtin=True)
    start = attach_app(first.agent, cont=False, resume_id=None)
    async with running_app(first.agent, session=start) as (_app, pilot):
        await send_turns(pilot, f"/add-dir {kept}", f"/add-dir {gone}", "hello")
    shutil.rmtree(gone)

    read = {"id": "r1", "name": "read_file", "input": {"path": str(kept / "notes.txt")}}
    second = make_agent([{"tool_calls": [read]}, {"text": "Read it."}], builtin=True)
    start = attach_app(second.agent, cont=True, resume_id=None)
    async with running_app(second.agent, session=start) as (app, pilot):
        said = f"The session's extra root {gone.resolve()} was left out"
        await wait_until(pilot, lambda: any(said in n.text for n in app.query(Note)), "the warning")
        (warning,) = [n for n in app.query(Note) if said in n.text]
        assert warning.level == "warning" and "is not a folder" in warning.text
        await send_turns(pilot, "/status", "read the notes")
        status = [n.text for n in app.query(MarkdownNote) if "Extra roots" in n.text]
        assert f"**Extra roots:** `{kept.resolve()}`" in status[-1]
    assert second.agent.deps.session.extra_roots == [kept.resolve()]
    assert TEXT in json.dumps([m.to_dict() for m in second.provider.requests[-1].messages])
