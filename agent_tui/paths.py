"""Where agent-tui keeps state: the user's state dir, never the workspace (DESIGN §9)."""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """The user state dir (platformdirs ``agent-tui``); ``AGENT_TUI_STATE_DIR`` overrides it."""
    override = os.environ.get("AGENT_TUI_STATE_DIR")
    if override:
        path = Path(override)
    else:
        from platformdirs import user_state_dir

        path = Path(user_state_dir("agent-tui"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def user_config_path() -> Path:
    return Path(os.environ.get("AGENT_TUI_USER_CONFIG", Path.home() / ".agentrc"))


def user_prompts_dir() -> Path:
    return Path.home() / ".agent" / "prompts"
