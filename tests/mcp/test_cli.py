"""``agent-tui mcp list | tools | call`` against the real fault server (issue 15 §2)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.helpers import run_cli
from tests.mcp.fault import FAULT_SERVER, cli_env, fault_agentrc


def _mcp(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    proc = run_cli(ws, "mcp", *args, env=cli_env(tmp_path), timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def _workspace_server(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    entry = {"command": sys.executable, "args": [str(FAULT_SERVER)]}
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"repo": entry}}))


def test_mcp_list_shows_status_tool_count_and_defining_file(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home")
    code, out, err = _mcp(tmp_path, "list", "--json")
    assert code == 0, err
    [row] = json.loads(out)
    assert row["name"] == "fault" and row["status"] == "running"
    assert row["tools"] == 8
    assert row["defined_in"] == str(tmp_path / "home" / ".agentrc")


def test_mcp_list_skips_an_untrusted_workspace_servers_unless_trust_is_given(
    tmp_path: Path,
) -> None:
    fault_agentrc(tmp_path / "home")
    _workspace_server(tmp_path)
    code, out, err = _mcp(tmp_path, "list")
    assert code == 0, err
    assert "repo" not in out and ".mcp.json: MCP servers not started" in err
    code, out, err = _mcp(tmp_path, "list", "--json", "--trust")
    assert code == 0, err
    rows = {row["name"]: row for row in json.loads(out)}
    assert rows["repo"]["status"] == "running"
    assert rows["repo"]["defined_in"] == str(tmp_path / "ws" / ".mcp.json")


def test_mcp_list_reports_a_server_that_failed_with_its_reason(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home", mcp="connect_timeout_s = 1", env={"FAULT_START_DELAY": "50"})
    code, out, err = _mcp(tmp_path, "list")
    assert code == 0, err
    assert "failed (did not connect within 1 s)" in out


def test_mcp_tools_lists_names_and_json_schemas(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home")
    code, out, err = _mcp(tmp_path, "tools", "fault")
    assert code == 0, err
    assert out.splitlines()[0].startswith("hang  Never answers.")
    code, out, err = _mcp(tmp_path, "tools", "fault", "--json")
    tools = {tool["name"]: tool for tool in json.loads(out)}
    assert tools["fail"]["input_schema"]["required"] == ["reason"]


def test_mcp_call_prints_the_result_and_exits_1_on_a_tool_error(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home")
    code, out, err = _mcp(tmp_path, "call", "fault", "structured", '{"city": "Oslo"}')
    assert code == 0, err
    assert json.loads(out) == {"city": "Oslo", "celsius": 21}
    code, out, err = _mcp(tmp_path, "call", "fault", "fail", '{"reason": "no such thing 77"}')
    assert code == 1 and "no such thing 77" in err and out == ""


def test_mcp_call_usage_errors_exit_2(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home")
    for args, said in (
        (("call", "fault", "fail", "not json"), "JSON-ARGS is not valid JSON"),
        (("call", "fault", "fail", "[1]"), "JSON-ARGS must be a JSON object"),
        (("call", "nowhere", "x"), "no MCP server named 'nowhere'"),
        (("call", "fault", "missing"), "has no tool 'missing'"),
        (("tools",), "the following arguments are required: NAME"),
        (("frobnicate",), "usage: agent-tui mcp"),
    ):
        code, _, err = _mcp(tmp_path, *args)
        assert code == 2, (args, err)
        assert said in err, (args, err)


def test_mcp_call_help_says_the_tool_runs_without_approval(tmp_path: Path) -> None:
    code, out, _ = _mcp(tmp_path, "call", "--help")
    assert code == 0 and "without asking for approval" in " ".join(out.split())


def test_url_elicitation_is_declined_where_nobody_can_be_asked(tmp_path: Path) -> None:
    fault_agentrc(tmp_path / "home")
    code, out, err = _mcp(tmp_path, "call", "fault", "open_url")
    assert code == 0, err
    assert out.strip() == "url elicitation: decline"
    log = (tmp_path / "state" / "logs" / "mcp-fault.log").read_text()
    assert "declined a URL-mode elicitation (nobody to ask): https://example.test/signin" in log
