"""Server lifecycle with mcp-server-time and the small SDK server: crash, restart, timeouts, logs."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.errors import McpError, ToolError
from agent_tui.tools.base import SessionState, ToolContext
from tests.mcp.conftest import DYNAMIC_SERVER, MakeManager


def children_running(marker: str) -> list[int]:
    """PIDs of this process's children whose command line contains ``marker`` (Linux /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == os.getpid() and marker in cmdline:
            found.append(int(entry.name))
    return found


async def test_time_server_tools_and_error(
    make_manager: MakeManager, time_server: dict[str, Any], workspace: Path
) -> None:
    manager, registry = await make_manager({"time": time_server})
    assert manager.servers["time"].status == "running", manager.servers["time"].error
    assert {"mcp_time_get_current_time", "mcp_time_convert_time"} <= {
        m.name for m in registry.manifests()
    }
    ctx = ToolContext(workspace, SessionState())
    tool = registry.get("mcp_time_get_current_time")
    ok = await tool.invoke({"timezone": "Europe/Paris"}, ctx)
    assert not ok.is_error and '"timezone": "Europe/Paris"' in ok.content
    assert ok.data["structured_content"]["timezone"] == "Europe/Paris"
    bad = await tool.invoke({"timezone": "Nowhere/Atlantis"}, ctx)
    assert bad.is_error and "Invalid timezone" in bad.content


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server's pid in /proc")
async def test_server_killed_mid_session_fails_then_restarts(
    make_manager: MakeManager, time_server: dict[str, Any], workspace: Path
) -> None:
    manager, registry = await make_manager({"time": time_server})
    state = manager.servers["time"]
    tool = registry.get("mcp_time_get_current_time")
    [pid] = children_running("mcp_server_time")
    os.kill(pid, signal.SIGKILL)

    await manager.wait_for(lambda: state.status == "failed", 30)
    assert "closed the connection" in state.error
    assert "mcp_time_get_current_time" not in registry  # tools withdrawn
    with pytest.raises(ToolError, match="/mcp restart time"):
        await tool.invoke({"timezone": "UTC"}, ToolContext(workspace, SessionState()))
    assert "failed: the server closed the connection" in state.log_path.read_text()

    await manager.restart("time")
    assert state.status == "running"
    result = await registry.get("mcp_time_get_current_time").invoke(
        {"timezone": "UTC"}, ToolContext(workspace, SessionState())
    )
    assert '"timezone": "UTC"' in result.content
    assert children_running("mcp_server_time") != [pid]


async def test_stop_withdraws_tools_and_ends_the_process(
    make_manager: MakeManager, time_server: dict[str, Any]
) -> None:
    manager, registry = await make_manager({"time": time_server})
    await manager.stop("time")
    assert manager.servers["time"].status == "stopped"
    assert not any(m.source == "mcp:time" for m in registry.manifests())
    assert children_running("mcp_server_time") == []
    with pytest.raises(McpError, match="'time' is stopped"):
        await manager.call_tool("time", "get_current_time", {"timezone": "UTC"})


async def test_a_server_that_never_answers_times_out(make_manager: MakeManager) -> None:
    silent = {"command": sys.executable, "args": ["-c", "import sys; sys.stdin.read()"]}
    manager, _ = await make_manager({"silent": silent}, timeout=1)
    state = manager.servers["silent"]
    assert state.status == "failed"
    assert state.error == "did not connect within 1 s"


async def test_a_missing_command_fails_with_its_reason_logged(make_manager: MakeManager) -> None:
    manager, _ = await make_manager({"ghost": {"command": "agent-tui-no-such-server-binary"}})
    state = manager.servers["ghost"]
    assert state.status == "failed"
    assert "agent-tui-no-such-server-binary" in state.error or "No such file" in state.error
    assert "FileNotFoundError" in state.log_path.read_text()


async def test_stderr_goes_to_the_log_file(make_manager: MakeManager, tmp_path: Path) -> None:
    script = (
        "import sys; sys.stderr.write('boom from the server\\n'); sys.stderr.flush(); sys.exit(3)"
    )
    manager, _ = await make_manager({"noisy": {"command": sys.executable, "args": ["-c", script]}})
    state = manager.servers["noisy"]
    assert state.status == "failed"
    assert state.log_path == tmp_path / "state" / "logs" / "mcp-noisy.log"
    assert "boom from the server" in state.log_path.read_text()


async def test_tools_list_changed_and_pagination(
    make_manager: MakeManager, workspace: Path
) -> None:
    server = {"command": sys.executable, "args": [str(DYNAMIC_SERVER)]}
    manager, registry = await make_manager({"dyn": server})
    state = manager.servers["dyn"]
    assert state.status == "running", state.error
    # tools/list answers one tool per page: all four pages were followed.
    assert sorted(t.name for t in state.tools) == ["add_tool", "fail", "header", "shout"]
    assert registry.manifest("mcp_dyn_shout").read_only_hint

    ctx = ToolContext(workspace, SessionState())
    await registry.get("mcp_dyn_add_tool").invoke({"name": "fresh"}, ctx)
    await manager.wait_for(lambda: "mcp_dyn_fresh" in registry, 30)
    result = await registry.get("mcp_dyn_fresh").invoke({}, ctx)
    assert result.content == "I am fresh"

    failed = await registry.get("mcp_dyn_fail").invoke({"reason": "on purpose"}, ctx)
    assert failed.is_error and "on purpose" in failed.content
