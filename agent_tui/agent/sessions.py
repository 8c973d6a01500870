"""Saved conversations: state_dir()/sessions/<id>.json (DESIGN §9). Never in the workspace."""

from __future__ import annotations

import json
import secrets
import time
from pathlib import Path
from typing import Any

from agent_tui.conversation import Conversation
from agent_tui.paths import state_dir
from agent_tui.state_files import private_dir, write_private
from agent_tui.text_safety import escape_json


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def session_path(session_id: str) -> Path:
    return private_dir(state_dir() / "sessions") / f"{session_id}.json"


def save_session(session_id: str, workspace: Path, model: str, conversation: Conversation) -> Path:
    """Write the conversation atomically (a crash mid-write never leaves half a file).

    Raises:
        OSError: the state dir cannot be written.
    """
    path = session_path(session_id)
    body: dict[str, Any] = {
        "id": session_id,
        "workspace": str(workspace.resolve()),
        "model": model,
        "saved_at": time.time(),
        "messages": conversation.to_json(),
    }
    # 0600: it holds the user's code. Escaped so that showing the file (cat, less -r) cannot run
    # what a model wrote into it.
    write_private(path, escape_json(json.dumps(body, ensure_ascii=False)))
    return path


def load_session(session_id: str) -> Conversation:
    data = json.loads(session_path(session_id).read_text(encoding="utf-8"))
    return Conversation.from_json(data["messages"])
