"""A stdio MCP server whose config says `sandbox = true` runs inside the sandbox (real server)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import run_cli

SERVER = Path(__file__).parent / "writer_server.py"


def _agentrc(home: Path, sandbox: bool) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    (home / ".bashrc").write_text("# mine\n")
    (home / ".agentrc").write_text(
        f'[mcp.servers.writer]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n'
        f"sandbox = {'true' if sandbox else 'false'}\n"
    )
    return {
        "HOME": str(home),
        "AGENT_TUI_USER_CONFIG": str(home / ".agentrc"),
        "AGENT_TUI_STATE_DIR": str(home / "state"),
    }


@pytest.mark.usefixtures("bwrap")
def test_a_sandboxed_server_writes_the_workspace_but_not_home(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = _agentrc(tmp_path / "home", sandbox=True)
    inside = run_cli(ws, "mcp", "call", "writer", "write", '{"path": "made.txt"}', env=env)
    assert inside.returncode == 0, inside.stderr
    assert (ws / "made.txt").read_text() == "written"
    outside = run_cli(
        ws, "mcp", "call", "writer", "write", f'{{"path": "{tmp_path}/home/.bashrc"}}', env=env
    )
    assert "Read-only file system" in outside.stdout + outside.stderr
    assert (tmp_path / "home" / ".bashrc").read_text() == "# mine\n"


def test_a_server_that_asks_for_the_sandbox_fails_when_it_is_off(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {**_agentrc(tmp_path / "home", sandbox=True), "AGENT_TUI_SANDBOX": "off"}
    proc = run_cli(ws, "mcp", "call", "writer", "write", '{"path": "made.txt"}', env=env)
    assert proc.returncode != 0
    assert "sandbox = true" in proc.stdout + proc.stderr
    assert not (ws / "made.txt").exists()
