"""/rewind rolls the todo list back with the conversation (issue 26 item 1): after rewinding to
an earlier prompt the panel, the model's next request (the reminder of open items) and a resumed
session all show the list as it stood at that prompt, not the one the later turns left. A real
agent on the fake LLM server, in the app under Pilot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.ui.widgets.todo_panel import TodoPanel
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import send_turns
from tests.ui.helpers import wait_idle, wait_until
from tests.ui.screen_text import region_text
from tests.ui.test_rewind_app import app_for, open_rewind, user_texts, workspace  # noqa: F401

EARLY = [{"content": "Read the parser", "status": "in_progress"}]
LATE = [
    {"content": "Read the parser", "status": "completed"},
    {"content": "Rewrite the lexer", "status": "in_progress"},
]


def _todo(call_id: str, items: list[dict[str, str]]) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "input": {"items": items}}]}


def _panel(app: Any) -> str:
    panel = app.query_one(TodoPanel)
    return region_text(app, panel.content_region) if panel.display else ""


async def test_rewind_puts_back_the_todo_list_of_that_prompt(workspace: Path) -> None:  # noqa: F811
    script = [
        _todo("t1", EARLY),
        {"text": "first answer"},
        _todo("t2", LATE),
        {"text": "second answer"},
        {"text": "third answer"},
    ]
    with FakeLLM(script) as fake:
        app, _ = app_for(workspace, fake, session="new")
        async with app.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await pilot.pause()
            assert "Rewrite the lexer" in _panel(app)
            await open_rewind(pilot)
            await pilot.press("v")  # the newest prompt: conversation only
            await wait_idle(pilot)
            await wait_until(pilot, lambda: "Rewrite" not in _panel(app), "the list rolled back")
            assert "Read the parser" in _panel(app)
            assert [i.content for i in app.front.todo()] == ["Read the parser"]
            await send_turns(pilot, "third prompt")
        requests = fake.requests
    assert user_texts(requests[-1])[0] == "first prompt"
    prompt = str(requests[-1]["messages"][-1])  # the third prompt, with the open items named
    assert "third prompt" in prompt and "Read the parser" in prompt
    assert "Rewrite the lexer" not in str(requests[-1]["messages"])

    with FakeLLM([{"text": "unused"}]) as fake:
        resumed, _ = app_for(workspace, fake, session="continue")
        async with resumed.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: "Read the parser" in _panel(resumed), "the panel")
            assert "Rewrite the lexer" not in _panel(resumed)
            # and a rewind after the resume still finds the earlier lists
            await open_rewind(pilot)
            await pilot.press("down", "v")  # the first prompt: before any list
            await wait_idle(pilot)
            await wait_until(pilot, lambda: _panel(resumed) == "", "no list before the first")
            assert resumed.front.todo() == ()
