"""End to end: a scripted model calls a server-everything tool through the agent loop.

The app wiring is ``create_mcp`` + ``start_all`` + ``wait_started`` (what headless and the TUI do);
the loop validates the call against the server's schema, the approval engine allows the read-only
echo tool without asking, and the tool result reaches the model's next request.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from agent_tui.approvals.grants import SAMPLING_GRANT, GrantStore
from agent_tui.approvals.types import Decision, Scope
from agent_tui.build import build_agent
from agent_tui.commands.registry import CommandRegistry
from agent_tui.config import load_config
from agent_tui.headless import HeadlessOptions, run_turn
from agent_tui.mcp.sampling import complete_with
from agent_tui.mcp.session import create_mcp
from agent_tui.mcp.types import SamplingRequest
from agent_tui.providers.scripted import ScriptedProvider
from agent_tui.tools.registry import ToolRegistry
from tests.helpers import run_cli
from tests.mcp.conftest import everything_entry

SAMPLE_TOOL = "mcp_everything_trigger-sampling-request"


async def test_model_calls_an_mcp_tool_and_sees_the_result(
    workspace: Path, everything_js: Path, tmp_path: Path
) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [
                        {
                            "id": "call_1",
                            "name": "mcp_everything_echo",
                            "input": {"message": "via MCP"},
                        }
                    ]
                },
                {"text": "The server echoed it."},
            ]
        )
    )
    user = tmp_path / "user.agentrc"
    user.write_text(
        f'[model]\nprovider = "scripted"\nscript = "{script}"\n\n' + everything_entry(everything_js)
    )
    config = load_config(workspace, env={}, user_file=user)
    agent = build_agent(config)
    manager = create_mcp(config, agent.deps.tools, agent.deps.commands)
    assert manager is not None
    manager.start_all()
    try:
        await manager.wait_started(60)
        out = io.StringIO()
        code = await run_turn(
            agent, "echo something", HeadlessOptions("stream-json", "fail"), out, io.StringIO()
        )
    finally:
        await manager.aclose()
    assert code == 0, out.getvalue()
    provider = agent.deps.provider
    assert isinstance(provider, ScriptedProvider)
    assert "mcp_everything_echo" in [tool.name for tool in provider.requests[0].tools]
    results = [
        block
        for message in provider.requests[1].messages
        for block in message.content
        if block.type == "tool_result"
    ]
    assert results[0].content == "Echo: via MCP" and not results[0].is_error
    final = json.loads(out.getvalue().splitlines()[-1])
    assert final["result"] == "The server echoed it."


async def test_sampling_through_the_session_provider(
    workspace: Path, everything_js: Path, tmp_path: Path
) -> None:
    provider = ScriptedProvider([{"text": "sampled by the scripted model"}])
    asked: list[str] = []

    async def allow(server: str, request: SamplingRequest) -> Decision:
        asked.append(server)
        return Decision(allow=True)

    user = tmp_path / "user.agentrc"
    user.write_text(everything_entry(everything_js))
    config = load_config(workspace, env={}, user_file=user)
    tools = ToolRegistry()
    manager = create_mcp(
        config,
        tools,
        CommandRegistry(),
        ask_sampling=allow,
        complete=complete_with(provider, "scripted"),
    )
    assert manager is not None
    manager.start_all()
    try:
        await manager.wait_for(lambda: "mcp_everything_trigger-sampling-request" in tools)
        outcome = await manager.call_tool(
            "everything", "trigger-sampling-request", {"prompt": "hello", "maxTokens": 20}
        )
    finally:
        await manager.aclose()
    assert "sampled by the scripted model" in outcome.parts[0].text
    assert asked == ["everything"]
    request = provider.requests[0]
    assert request.system == "You are a helpful test server." and request.max_tokens == 20
    assert "hello" in request.messages[0].text


@pytest.mark.parametrize("granted", [False, True])
def test_headless_sampling_needs_a_stored_grant(
    workspace: Path, everything_js: Path, tmp_path: Path, granted: bool
) -> None:
    """Headless cannot ask, so a server's sampling request is declined unless the user granted it
    earlier (in the app, for this workspace or always): a stored grant counts as for a tool."""
    sample = {
        "tool_calls": [
            {"id": "c1", "name": SAMPLE_TOOL, "input": {"prompt": "haiku", "maxTokens": 20}}
        ]
    }
    turns = (
        [sample, {"text": "a sampled haiku"}, {"text": "done"}]
        if granted
        else [
            sample,
            {"text": "done"},
        ]
    )
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    home = tmp_path / "home"
    (home / ".agentrc").write_text(
        f'[model]\nprovider = "scripted"\nscript = "{script}"\n\n' + everything_entry(everything_js)
    )
    state = tmp_path / "state"
    if granted:
        GrantStore(workspace, state).add(Scope.WORKSPACE, SAMPLING_GRANT, "everything")
    done = run_cli(
        workspace,
        *("-p", "sample", "--output-format", "stream-json", "--allow-tool", SAMPLE_TOOL),
        env={"HOME": str(home), "AGENT_TUI_STATE_DIR": str(state)},
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    result = next(e for e in events if e["type"] == "tool_call_finished")["result"]
    if granted:
        assert "a sampled haiku" in result["content"] and not result["is_error"], result
    else:
        assert result["is_error"] and "declined" in result["content"], result
    assert events[-1]["result"] == "done"
