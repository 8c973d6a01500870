"""Shared set-up for the UI benchmarks: an Agent on the scripted provider in a temp workspace."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any


def temp_env() -> Path:
    """A temp dir used as HOME, state dir and workspace parent (nothing touches the real ones)."""
    base = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
    atexit.register(shutil.rmtree, base, True)
    for name in ("home", "state", "ws"):
        (base / name).mkdir()
    os.environ["HOME"] = str(base / "home")
    os.environ["AGENT_TUI_STATE_DIR"] = str(base / "state")
    return base


def scripted_agent(base: Path, turns: list[dict[str, Any]], chunk_delay: float = 0) -> Any:
    """A real Agent (build_agent) whose provider replays ``turns``."""
    from agent_tui.build import build_agent
    from agent_tui.config import load_config
    from agent_tui.providers.scripted import ScriptedProvider

    workspace = base / "ws"
    config = load_config(
        workspace,
        cli={"model": {"provider": "scripted", "script": str(base / "unused.json")}},
        env={},
        user_file=base / "home" / ".agentrc",
    )
    (base / "unused.json").write_text("[]", encoding="utf-8")
    agent = build_agent(config)
    agent.deps.provider = ScriptedProvider(turns, chunk_delay=chunk_delay)
    return agent


def rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")
