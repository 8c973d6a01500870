"""Helpers for tests that run ``agent-tui`` against the fault server (tests/mcp/servers)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake

FAULT_SERVER = Path(__file__).parent / "servers" / "fault_server.py"


def fault_agentrc(
    home: Path, *, mcp: str = "", server: str = "", env: dict[str, str] | None = None
) -> None:
    """Write ``home/.agentrc`` with the fault server as ``[mcp.servers.fault]``.

    Args:
        mcp: extra lines for ``[mcp]`` (``connect_timeout_s = 1``).
        server: extra lines for the server's table (``call_timeout_s = 1``).
        env: the server's environment (``FAULT_START_DELAY``, ``FAULT_LOG``...).
    """
    home.mkdir(parents=True, exist_ok=True)
    env_line = f"env = {_inline(env)}\n" if env else ""
    (home / ".agentrc").write_text(
        f"[mcp]\n{mcp}\n[mcp.servers.fault]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(FAULT_SERVER))}]\n{env_line}{server}\n"
    )


def _inline(values: dict[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in values.items()) + " }"


def cli_env(tmp_path: Path) -> dict[str, str]:
    return {
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "test-key",
    }


def run_go(
    tmp_path: Path, fake_llm: FakeLLM, *extra: str, fmt: str = "json", timeout: float = 90
) -> subprocess.CompletedProcess[str]:
    """``agent-tui -p go --output-format FMT EXTRA`` in ``tmp_path/ws``, on the fake server.

    HOME is ``tmp_path/home`` (where ``fault_agentrc`` writes) and the state dir
    ``tmp_path/state``, as in ``cli_env``.
    """
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_fake(
        ws,
        fake_llm,
        "-p",
        "go",
        "--output-format",
        fmt,
        *extra,
        home=tmp_path / "home",
        state=tmp_path / "state",
        env={"ANTHROPIC_API_KEY": "test-key"},
        timeout=timeout,
    )


def call_then_finish(tool: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """A script: the model calls the fault server's ``tool``, then answers "Finished."."""
    return [
        {"tool_calls": [{"id": "c1", "name": f"mcp_fault_{tool}", "input": arguments}]},
        {"text": "Finished."},
    ]
