"""MCP costs nothing at startup when no server is configured (the SDK import alone is ~1 s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The app's path: create_mcp finds nothing configured and imports none of agent_tui.mcp's modules.
APP_PATH = """
import sys
from pathlib import Path
from agent_tui.config import load_config
from agent_tui.commands.registry import CommandRegistry
from agent_tui.mcp.session import create_mcp
from agent_tui.tools.registry import ToolRegistry

config = load_config(Path(sys.argv[1]), env={}, user_file=Path(sys.argv[1]) / "none")
commands = CommandRegistry()
assert create_mcp(config, ToolRegistry(), commands) is None
assert commands.get("mcp") is not None
print(sorted(m for m in sys.modules if m == "mcp" or m.startswith(("mcp.", "mcp_types", "agent_tui.mcp."))))
"""

# A manager built and started with no servers never imports the SDK.
MANAGER = """
import asyncio, sys
from pathlib import Path
from agent_tui.mcp.manager import McpManager
from agent_tui.tools.registry import ToolRegistry

async def main():
    manager = McpManager({}, tools=ToolRegistry(), workspace=Path(sys.argv[1]))
    manager.start_all()
    await manager.wait_started(5)
    await manager.aclose()
    print("mcp" in sys.modules, "mcp_types" in sys.modules)

asyncio.run(main())
"""


def run(script: str, tmp_path: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "AGENT_TUI_STATE_DIR": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_no_servers_imports_no_mcp_module(tmp_path: Path) -> None:
    assert run(APP_PATH, tmp_path) == "['agent_tui.mcp.session']"


def test_a_manager_without_servers_does_not_import_the_sdk(tmp_path: Path) -> None:
    assert run(MANAGER, tmp_path) == "False False"
