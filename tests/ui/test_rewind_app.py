"""Issue 12 §4 in the app: /undo asks about hand edits, /rewind restores code, conversation or
both, with a real Agent talking HTTP to the fake LLM server and real files in a git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Label

from agent_tui import events as ev
from agent_tui.agent.resume import attach_app
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.notes import MarkdownNote, UserMessage
from tests.agent.conftest import FAKE_KEY_ENV
from tests.checkpoints.conftest import git_refs, make_repo, tree_state
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import send_clear, send_turns
from tests.ui.helpers import send, wait_idle, wait_screen, wait_until


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    make_repo(ws, {"x.txt": b"one\n", "y.txt": b"two\n"})
    return ws


def app_for(
    workspace: Path, fake: FakeLLM, *, session: str = ""
) -> tuple[AgentApp, list[ev.Event]]:
    """The app around a real agent that may edit without asking; and the events it publishes.
    ``session``: "new" saves a new session, "continue" resumes the last one (as the CLI does)."""
    settings = {
        "provider": "anthropic",
        "base_url": fake.url,
        "name": "fake-model",
        "api_key_env": FAKE_KEY_ENV,
        "max_retries": 0,
    }
    config = load_config(
        workspace,
        cli={"model": settings, "tools": {"auto_approve": True}},
        env={},
        user_file=workspace / "no-user-rc",
    )
    agent = build_agent(config)
    published: list[ev.Event] = []
    agent.listeners.append(published.append)
    if session:
        start = attach_app(agent, cont=session == "continue", resume_id=None)
        return AgentApp(agent, session=start), published
    return AgentApp(agent), published


def edit(call_id: str, path: str, old: str, new: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {
                "id": call_id,
                "name": "replace_string_in_file",
                "input": {"path": path, "old_string": old, "new_string": new},
            }
        ]
    }


def create(call_id: str, path: str, content: str) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": call_id, "name": "create_file", "input": {"path": path, "content": content}}
        ]
    }


def user_texts(body: dict[str, Any]) -> list[str]:
    return [
        block["text"]
        for message in body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "text"
    ]


def notes_text(app: AgentApp) -> str:
    return "\n".join(note.text for note in app.query(MarkdownNote))  # type: ignore[attr-defined]


async def open_rewind(pilot: Pilot[object]) -> None:
    await send(pilot, "/rewind")
    await wait_screen(pilot, "RewindScreen")


@pytest.mark.parametrize("answer", ["k", "o", "escape"])
async def test_undo_asks_about_a_file_edited_by_hand_and_never_clobbers_it_silently(
    workspace: Path, answer: str
) -> None:
    script = [edit("1", "x.txt", "one", "ONE"), edit("2", "y.txt", "two", "TWO"), {"text": "ok"}]
    with FakeLLM(script) as fake:
        app, published = app_for(workspace, fake)
        async with app.run_test(size=(110, 36)) as pilot:
            await send(pilot, "edit both")
            await wait_idle(pilot)
            assert (workspace / "y.txt").read_bytes() == b"TWO\n"
            (workspace / "x.txt").write_bytes(b"ONE plus my edit\n")
            await send(pilot, "/undo")
            await wait_screen(pilot, "UndoConflictsScreen")
            shown = " ".join(str(label.render()) for label in app.screen.query(Label))
            assert "x.txt" in shown and "y.txt" not in shown
            await pilot.press(answer)
            await wait_idle(pilot)
    x, y = (workspace / "x.txt").read_bytes(), (workspace / "y.txt").read_bytes()
    if answer == "k":  # keep the hand edit, undo the rest
        assert (x, y) == (b"ONE plus my edit\n", b"two\n")
        assert published == [ev.CheckpointRestored(("y.txt",), None, (0,))]
    elif answer == "o":
        assert (x, y) == (b"one\n", b"two\n")
        assert published == [ev.CheckpointRestored(("x.txt", "y.txt"), None, (0,))]
    else:  # cancelled: nothing changed
        assert (x, y) == (b"ONE plus my edit\n", b"TWO\n")
        assert published == []


async def test_rewind_conversation_drops_the_turns_from_the_request_and_puts_the_prompt_back(
    workspace: Path,
) -> None:
    script = [
        {"text": "first answer"},
        create("c", "made.txt", "made by turn two\n"),
        {"text": "second answer"},
        {"text": "third answer"},
    ]
    with FakeLLM(script) as fake:
        app, published = app_for(workspace, fake)
        async with app.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await open_rewind(pilot)
            await pilot.press("v")  # the newest prompt is highlighted: conversation only
            await wait_idle(pilot)
            prompt = app.query_one("PromptInput")
            assert prompt.text == "second prompt"  # type: ignore[attr-defined]
            shown = [m.text for m in app.query(UserMessage)]
            assert shown == ["first prompt"]
            assert (workspace / "made.txt").exists()  # the code was left alone
            prompt.load_text("third prompt")  # type: ignore[attr-defined]
            await pilot.press("enter")
            await wait_idle(pilot)
        requests = fake.requests
    assert user_texts(requests[-1]) == ["first prompt", "third prompt"]
    assert "second" not in str(requests[-1]["messages"])
    assert published == [ev.ConversationRewound(2), ev.CheckpointRestored((), 2)]


async def test_rewind_both_restores_the_code_and_the_conversation_from_an_earlier_prompt(
    workspace: Path,
) -> None:
    script = [
        edit("1", "x.txt", "one", "ONE"),
        {"text": "first answer"},
        create("2", "made.txt", "new\n"),
        edit("3", "y.txt", "two", "TWO"),
        {"text": "second answer"},
        {"text": "again"},
    ]
    with FakeLLM(script) as fake:
        app, published = app_for(workspace, fake)
        before, refs = tree_state(workspace), git_refs(workspace)
        async with app.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await open_rewind(pilot)
            await pilot.press("down")  # the older prompt
            await pilot.press("b")
            await wait_until(
                pilot, lambda: app.query_one("PromptInput").text == "first prompt", "prompt back"
            )
            assert "Restored" in notes_text(app)
            assert list(app.query(UserMessage)) == []
            await pilot.press("enter")
            await wait_idle(pilot)
        requests = fake.requests
    assert tree_state(workspace) == before and git_refs(workspace) == refs
    assert user_texts(requests[-1]) == ["first prompt"]
    # Newest turn first: its edit and its new file, then the first turn's edit.
    assert published == [
        ev.ConversationRewound(0),
        ev.CheckpointRestored(("y.txt", "x.txt", "made.txt"), 0, (4, 0)),
    ]


async def test_rewind_redraws_a_conversation_the_app_did_not_draw_from_its_messages(
    workspace: Path,
) -> None:
    """After /clear and /undo-clear the transcript's entries are records the flow cannot line up
    with messages: the rewound conversation is drawn from its messages instead."""
    script = [{"text": "first answer"}, {"text": "second answer"}]
    with FakeLLM(script) as fake:
        app, _published = app_for(workspace, fake)
        async with app.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "first prompt", "second prompt")
            await send_clear(pilot, "y")
            await send(pilot, "/undo-clear")
            await wait_idle(pilot)
            await open_rewind(pilot)
            await pilot.press("v")
            await wait_idle(pilot)
            assert [m.text for m in app.query(UserMessage)] == ["first prompt"]
            answers = [a.text for a in app.query(AssistantMessage)]
            assert answers == ["first answer"]
            assert app.query_one("PromptInput").text == "second prompt"  # type: ignore[attr-defined]
        assert [m.role for m in app.front.messages] == ["user", "assistant"]
