"""`agent-tui -p` never hangs on an MCP server (issue 15 §4), against the real fault server.

The bound of each test is the subprocess timeout of ``run_cli``: a hang fails the test with
``TimeoutExpired``; nothing here measures time.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.mcp.fault import call_then_finish, fault_agentrc, run_go


def test_connect_timeout_during_the_sdk_import_fails_the_server_instead_of_hanging(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    # 1 ms: the timeout fires while the SDK is still being imported (it takes ~1 s).
    fault_agentrc(tmp_path / "home", mcp="connect_timeout_s = 0.001")
    fake_llm.set_script([{"text": "No tools needed."}])
    proc = run_go(tmp_path, fake_llm, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "MCP server fault failed: did not connect within 0.001 s" in proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "No tools needed."


def test_slow_starting_server_is_failed_with_the_reason_and_the_request_goes_on(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fault_agentrc(tmp_path / "home", mcp="connect_timeout_s = 1", env={"FAULT_START_DELAY": "50"})
    fake_llm.set_script([{"text": "Answered without it."}])
    proc = run_go(tmp_path, fake_llm, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "MCP server fault failed: did not connect within 1 s" in proc.stderr
    assert not any(t["name"].startswith("mcp_") for t in fake_llm.requests[0].get("tools", []))


def test_tool_call_that_never_answers_is_cancelled_and_the_model_gets_an_error(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    log = tmp_path / "fault.log"
    fault_agentrc(tmp_path / "home", server="call_timeout_s = 1", env={"FAULT_LOG": str(log)})
    fake_llm.set_script(call_then_finish("hang", {}))
    proc = run_go(tmp_path, fake_llm, "--allow-tool", "mcp_fault_hang", timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["tool_calls"] == [{"id": "c1", "name": "mcp_fault_hang", "is_error": True}]
    tool_result = json.dumps(fake_llm.requests[1]["messages"][-1])
    assert "did not answer within 1 s" in tool_result
    # The server heard notifications/cancelled: its handler was cancelled.
    assert log.read_text() == "cancelled\n"


def test_progress_notifications_restart_the_call_timeout(tmp_path: Path, fake_llm: FakeLLM) -> None:
    # Six reports half a second apart: three seconds in all, three times the 1 s call timeout.
    fault_agentrc(tmp_path / "home", server="call_timeout_s = 1")
    fake_llm.set_script(call_then_finish("busy", {"steps": 6, "interval": 0.5}))
    proc = run_go(tmp_path, fake_llm, "--allow-tool", "mcp_fault_busy", timeout=60)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["tool_calls"] == [{"id": "c1", "name": "mcp_fault_busy", "is_error": False}]
    assert "done after all steps" in json.dumps(fake_llm.requests[1]["messages"][-1])


async def test_mcp_counts_drop_to_zero_when_a_server_fails(make_manager: Any) -> None:
    from agent_tui.commands.mcp_cmds import servers_markdown
    from agent_tui.errors import McpError
    from tests.mcp.fault import FAULT_SERVER

    server = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    manager, registry = await make_manager({"fault": server})
    assert "| fault | running | 8 | 0 | 1 | stdio |" in servers_markdown(manager)
    with contextlib.suppress(McpError):  # the answer never comes: the process is gone
        await manager.call_tool("fault", "crash", {})
    await manager.wait_for(lambda: manager.servers["fault"].status == "failed")
    assert "| fault | failed | 0 | 0 | 0 | stdio |" in servers_markdown(manager)
    assert not [m for m in registry.manifests() if m.name.startswith("mcp_fault")]
