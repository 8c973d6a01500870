"""`agent-tui -p` with a real MCP server: the model calls server-everything's echo tool (issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import last_json, run_on_fake
from tests.mcp.conftest import everything_home, everything_js  # noqa: F401  (fixture)


def test_model_calls_an_mcp_tool_and_the_result_reaches_it(
    tmp_path: Path,
    fake_llm: FakeLLM,
    everything_js: Path,  # noqa: F811
) -> None:
    home = everything_home(tmp_path / "home", everything_js)
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
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "echo something",
        "--output-format",
        "json",
        "--allow-tool",
        "mcp_everything_echo",
        home=home,
        state=tmp_path / "state",
        env={"ANTHROPIC_API_KEY": "test-key"},
    )
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    assert result["tool_calls"] == [{"id": "m1", "name": "mcp_everything_echo", "is_error": False}]
    first, second = fake_llm.requests
    assert "mcp_everything_echo" in [t["name"] for t in first["tools"]]
    assert "ping-from-model-991" in json.dumps(second["messages"][-1])
