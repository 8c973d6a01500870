"""`agent-tui -p` with a real MCP server: the model calls server-everything's echo tool (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli
from tests.mcp.conftest import everything_js  # noqa: F401  (fixture)


def test_model_calls_an_mcp_tool_and_the_result_reaches_it(
    tmp_path: Path,
    fake_llm: FakeLLM,
    everything_js: Path,  # noqa: F811
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text(
        f'[mcp.servers.everything]\ncommand = "node"\nargs = ["{everything_js}", "stdio"]\n'
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {
                        "id": "m1",
                        "name": "mcp_everything_echo",
                        "input": {"message": "ping-from-model-991"},
                    }
                ]
            },
            {"text": "The server echoed it."},
        ]
    )
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "test-key",
    }
    proc = run_cli(
        ws,
        "-p",
        "echo something",
        "--provider",
        "anthropic",
        "--base-url",
        fake_llm.url,
        "--output-format",
        "json",
        "--allow-tool",
        "mcp_everything_echo",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["tool_calls"] == [{"id": "m1", "name": "mcp_everything_echo", "is_error": False}]
    first, second = fake_llm.requests
    assert "mcp_everything_echo" in [t["name"] for t in first["tools"]]
    assert "ping-from-model-991" in json.dumps(second["messages"][-1])
