"""server-everything over streamable HTTP and legacy SSE on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.errors import ToolError
from agent_tui.mcp.resources import resolve_mcp_reference
from agent_tui.tools.base import SessionState, ToolContext
from tests.mcp.conftest import HttpServer, MakeManager


async def test_streamable_http_tools_prompts_resources(
    make_manager: MakeManager, everything_http: HttpServer, workspace: Path
) -> None:
    url = f"http://127.0.0.1:{everything_http.port}/mcp"
    manager, registry = await make_manager(
        {"web": {"type": "http", "url": url, "headers": {"X-Agent": "agent-tui"}}}
    )
    state = manager.servers["web"]
    assert state.status == "running", state.error
    ctx = ToolContext(workspace, SessionState())
    echoed = await registry.get("mcp_web_echo").invoke({"message": "over http"}, ctx)
    assert echoed.content == "Echo: over http"
    summed = await registry.get("mcp_web_get-sum").invoke({"a": 2, "b": 40}, ctx)
    assert "42" in summed.content

    prompt = await manager.get_prompt("web", "args-prompt", {"city": "Oslo"})
    assert "Oslo" in prompt.messages[0].parts[0].text
    _, text = await resolve_mcp_reference(
        manager, "web/demo://resource/dynamic/text/{resourceId} 5"
    )
    assert "5" in text


async def test_http_server_killed_then_restarted(
    make_manager: MakeManager, everything_http: HttpServer, workspace: Path
) -> None:
    url = f"http://127.0.0.1:{everything_http.port}/mcp"
    manager, registry = await make_manager({"web": {"url": url}})  # type inferred from url
    state = manager.servers["web"]
    assert state.status == "running", state.error
    tool = registry.get("mcp_web_echo")
    everything_http.kill()

    ctx = ToolContext(workspace, SessionState())
    with pytest.raises(ToolError, match="/mcp restart web"):
        await tool.invoke({"message": "anyone?"}, ctx)
    await manager.wait_for(lambda: state.status == "failed", 30)
    assert "mcp_web_echo" not in registry

    everything_http.start()  # same port
    await manager.restart("web")
    assert state.status == "running", state.error
    result = await registry.get("mcp_web_echo").invoke({"message": "back"}, ctx)
    assert result.content == "Echo: back"


async def test_legacy_sse_transport(
    make_manager: MakeManager, everything_sse: HttpServer, workspace: Path
) -> None:
    url = f"http://127.0.0.1:{everything_sse.port}/sse"
    manager, registry = await make_manager({"old": {"type": "sse", "url": url}})
    assert manager.servers["old"].status == "running", manager.servers["old"].error
    result = await registry.get("mcp_old_echo").invoke(
        {"message": "over sse"}, ToolContext(workspace, SessionState())
    )
    assert result.content == "Echo: over sse"


async def test_unreachable_http_server_fails(make_manager: MakeManager) -> None:
    from tests.mcp.conftest import free_port

    manager, _ = await make_manager({"gone": {"url": f"http://127.0.0.1:{free_port()}/mcp"}})
    state = manager.servers["gone"]
    assert state.status == "failed"
    assert "Connect" in state.error or "connect" in state.error


async def test_http_headers_reach_the_server(
    make_manager: MakeManager,
    dynamic_http: HttpServer,
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENT_TUI_TEST_TOKEN", "t0k3n")
    url = f"http://127.0.0.1:{dynamic_http.port}/mcp"
    headers = {"X-Agent": "agent-tui", "Authorization": "Bearer ${env:AGENT_TUI_TEST_TOKEN}"}
    manager, registry = await make_manager({"py": {"type": "http", "url": url, "headers": headers}})
    assert manager.servers["py"].status == "running", manager.servers["py"].error
    tool = registry.get("mcp_py_header")
    ctx = ToolContext(workspace, SessionState())
    assert (await tool.invoke({"name": "X-Agent"}, ctx)).content == "agent-tui"
    assert (await tool.invoke({"name": "Authorization"}, ctx)).content == "Bearer t0k3n"
