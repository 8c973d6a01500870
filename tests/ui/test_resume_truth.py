"""A resumed session replays the conversation as it now stands (issue 23 item 5): a turn
rewound with /rewind is gone (from the transcript and from /rewind's list), an edit put back by
/undo says so. Real agent on the fake LLM server, real files in a git repository."""

from __future__ import annotations

from pathlib import Path

from agent_tui.ui.resume_flow import UNDONE
from agent_tui.ui.widgets.notes import Note, UserMessage
from agent_tui.ui.widgets.replayed_turn import TurnRow
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import send_turns
from tests.ui.helpers import send, wait_idle, wait_until
from tests.ui.test_rewind_app import app_for, create, edit, open_rewind, workspace  # noqa: F401


async def test_resume_after_rewind_and_undo_shows_the_conversation_as_it_stands(
    workspace: Path,  # noqa: F811
) -> None:
    script = [
        edit("1", "x.txt", "one", "ONE"),
        {"text": "first answer"},
        edit("2", "y.txt", "two", "TWO"),
        {"text": "second answer"},
        create("3", "z.txt", "made by the third turn\n"),
        {"text": "third answer"},
        {"text": "fourth answer"},
    ]
    with FakeLLM(script) as fake:
        first, _ = app_for(workspace, fake, session="new")
        async with first.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await send(pilot, "/undo")  # the second turn's edit of y.txt
            await wait_idle(pilot)
            await send_turns(pilot, "third prompt")
            await open_rewind(pilot)
            await pilot.press("v")  # the newest prompt, conversation only
            await wait_idle(pilot)
            # Sent where the rewound prompt was: its checkpoint (z.txt) must not name this one.
            await send_turns(pilot, "fourth prompt")
        assert (workspace / "y.txt").read_bytes() == b"two\n"

        app, _ = app_for(workspace, fake, session="continue")
        async with app.run_test(size=(110, 36)) as pilot:
            await pilot.pause()
            assert [u.text for u in app.query(UserMessage)] == ["fourth prompt"]
            rows = list(app.query(TurnRow))
            texts = [str(r.render()) for r in rows]
            assert [t.split(" · ")[0] for t in texts] == ["▸ first prompt", "▸ second prompt"]
            assert texts[1].endswith("changes undone") and "undone" not in texts[0]
            rows[1].focus()
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(app.query(UserMessage)) == 2, "the second turn")
            [card] = list(app.query(ToolCard))
            assert card.state.note == "undone" and "· undone" in str(card._header.render())
            assert UNDONE in [n.text for n in app.query(Note)]  # type: ignore[attr-defined]
            await open_rewind(pilot)
            listed = app.screen.query_one("OptionList")
            labels = " | ".join(
                str(listed.get_option_at_index(i).prompt)  # type: ignore[attr-defined]
                for i in range(listed.option_count)  # type: ignore[attr-defined]
            )
            assert "third prompt" not in labels
            for prompt in ("first prompt", "second prompt", "fourth prompt"):
                assert prompt in labels
            await pilot.press("escape")


async def test_undo_after_a_rewind_and_a_new_prompt_marks_no_turn_that_did_not_change_files(
    workspace: Path,  # noqa: F811
) -> None:
    """/rewind (conversation only) of a turn that created z.txt, a new prompt at the same
    place, then /undo: the undo puts back the rewound turn's z.txt, and names no turn of the
    conversation (the new prompt, at the rewound one's index, changed nothing)."""
    script = [
        edit("1", "x.txt", "one", "ONE"),
        {"text": "first answer"},
        create("2", "z.txt", "made by the second turn\n"),
        {"text": "second answer"},
        {"text": "third answer"},
    ]
    with FakeLLM(script) as fake:
        first, _ = app_for(workspace, fake, session="new")
        async with first.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await open_rewind(pilot)
            await pilot.press("v")  # the newest prompt, conversation only: z.txt stays
            await wait_idle(pilot)
            await send_turns(pilot, "third prompt")
            await send(pilot, "/undo")
            await wait_idle(pilot)
        assert not (workspace / "z.txt").exists()  # the rewound turn's file, put back
        assert (workspace / "x.txt").read_bytes() == b"ONE\n"

        app, _ = app_for(workspace, fake, session="continue")
        async with app.run_test(size=(110, 36)) as pilot:
            await pilot.pause()
            assert [u.text for u in app.query(UserMessage)] == ["third prompt"]
            assert UNDONE not in [n.text for n in app.query(Note)]  # type: ignore[attr-defined]
            [row] = [str(r.render()) for r in app.query(TurnRow)]
            assert row.startswith("▸ first prompt") and "undone" not in row
