"""`/add-dir` in the app (issue 27 item 2): the folder joins the session's roots, `/status` lists
it, the model's next read of a file there runs unasked and its text reaches the model; a
protected location (the home folder, here through a symbolic link) is refused with a reason."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.ui.widgets.notes import MarkdownNote
from tests.ui.app_helpers import running_app, send_turns
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import wait_idle, wait_until

TEXT = "extra-root-text-9182"


async def test_add_dir_then_the_model_reads_there(make_agent: MakeAgent, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "notes.txt").write_text(TEXT + "\n")
    (lib / "home-link").symlink_to(Path.home())
    read = {"id": "r1", "name": "read_file", "input": {"path": str(lib / "notes.txt")}}
    h = make_agent([{"tool_calls": [read]}, {"text": "Read it."}], builtin=True)
    async with running_app(h.agent) as (app, pilot):
        await send_turns(pilot, f"/add-dir {lib / 'home-link'}", f"/add-dir {lib}", "/status")
        await wait_until(pilot, lambda: len(app.query(MarkdownNote)) == 3, "three cards")
        refused, added, status = (note.text for note in app.query(MarkdownNote))
        assert "Not added" in refused and "home folder" in refused
        assert f"Added `{lib}`" in added
        assert f"**Extra roots:** `{lib}`" in status
        await send_turns(pilot, "read the notes")
    assert h.agent.deps.session.extra_roots == [lib.resolve()]
    assert TEXT in json.dumps([m.to_dict() for m in h.provider.requests[-1].messages])


async def test_an_added_folder_is_offered_and_attached_with_at(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "helper_mod.py").write_text(f"MARK = '{TEXT}'\n")
    h = make_agent([{"text": "ok"}])
    wanted = (lib.resolve() / "helper_mod.py").as_posix()
    async with running_app(h.agent) as (app, pilot):
        assert wanted not in app.completer.files
        await send_turns(pilot, f"/add-dir {lib}")
        await wait_until(pilot, lambda: wanted in app.completer.files, "the extra root's files")
        await pilot.press(*"see @helpermod")
        await pilot.press("tab")
        assert app.query_one("PromptInput").text == f"see @{wanted} "  # type: ignore[attr-defined]
        await pilot.press("enter")
        await wait_idle(pilot)
    assert TEXT in json.dumps(h.agent.conversation.to_json())
