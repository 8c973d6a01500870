"""``@fifo`` in the app (issue 22 item 4): a FIFO named by a mention is refused with a note, and
the app stays responsive (on main the turn hung and Esc could not cancel a thread stuck in read).
"""

from __future__ import annotations

import json
import os

from agent_tui.ui.widgets.notes import ErrorNote, Note
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle


async def test_at_mention_of_a_fifo_is_refused_with_a_note_not_hung(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "second answer"}])
    os.mkfifo(h.workspace / "fifo")
    (h.workspace / "main.py").write_text("MAIN_MARKER = 1\n")
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "see @fifo")
        await wait_idle(pilot)
        said = " ".join(n.text for n in [*app.query(Note), *app.query(ErrorNote)])
        assert "named pipe (FIFO), not a regular file" in said
        assert "fifo" in said
        # The app still works: the next message goes through and attaches a real file.
        await send(pilot, "now @main.py")
        await wait_idle(pilot)
        assert "MAIN_MARKER" in json.dumps(h.agent.conversation.to_json())
