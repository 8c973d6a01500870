"""Sessions keep images and encrypted reasoning (issue 14): what `-p` saved loads back whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.conversation import (
    Conversation,
    ImageBlock,
    Message,
    ThinkingBlock,
    ToolResultBlock,
)
from agent_tui.sessions import SessionStore
from agent_tui.sessions.loader import load
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli
from tests.test_images_e2e import tiny_png


def test_saved_session_keeps_images_and_encrypted_reasoning(
    tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "shot.png").write_bytes(tiny_png(5))
    (tmp_path / "q.png").write_bytes(tiny_png(6))
    call = {"id": "r1", "name": "read_file", "input": {"path": "shot.png"}}
    fake_llm.set_script(
        [{"thinking": "look", "signature": "enc-xyz", "tool_calls": [call]}, {"text": "done"}]
    )
    state = tmp_path / "state"
    env = {"AGENT_TUI_STATE_DIR": str(state), "HOME": str(tmp_path / "home"), "OPENAI_API_KEY": "k"}
    flags = ["--provider", "openai", "--base-url", fake_llm.openai_url, "--wire-api", "responses"]
    proc = run_cli(
        ws, *flags, "-p", "see", "--image", str(tmp_path / "q.png"), "--output-format", "json",
        env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    session_id = json.loads(proc.stdout.splitlines()[-1])["session_id"]
    info = SessionStore(state, ws).get(session_id)
    assert info is not None
    conversation = load(info.path).conversation
    request, answer, results, _ = conversation.messages
    assert [i.name for i in request.images] == ["q.png"]
    assert request.images[0].media_type == "image/png"
    thought = answer.content[0]
    assert isinstance(thought, ThinkingBlock) and thought.encrypted == "enc-xyz"
    result = results.content[0]
    assert isinstance(result, ToolResultBlock) and [i.name for i in result.images] == ["shot.png"]


def test_round_trip_and_old_sessions_load() -> None:
    image = ImageBlock("image/gif", "R0lGODlhAQABAAAAACw=", "a.gif")
    conversation = Conversation(
        [
            Message("user", [image]),
            Message("assistant", [ThinkingBlock("t", encrypted="e")]),
            Message("user", [ToolResultBlock("c", "x", images=(image,))]),
        ]
    )
    assert Conversation.from_json(json.loads(json.dumps(conversation.to_json()))) == conversation
    old = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": "x",
                                         "is_error": False}]}]  # fmt: skip
    assert Conversation.from_json(old).messages[0].content == [ToolResultBlock("c", "x")]
