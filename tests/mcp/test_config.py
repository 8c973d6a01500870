"""MCP server configuration: .agentrc, .vscode/mcp.json, .mcp.json, trust, variables, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.config import load_config
from agent_tui.errors import ConfigError
from agent_tui.mcp.config import expand, load_servers, parse_server, strip_jsonc
from agent_tui.mcp.manager import McpManager

VSCODE_JSONC = """{
  // VS Code writes comments and trailing commas
  "servers": {
    "fs": {"type": "stdio", "command": "npx", "args": ["-y", "srv", "${workspaceFolder}/src",],},
    "remote": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
  },
  /* an empty inputs list */
  "inputs": [],
}"""


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_workspace_json_files_are_read_when_trusted(workspace: Path) -> None:
    write(workspace / ".vscode" / "mcp.json", VSCODE_JSONC)
    write(
        workspace / ".mcp.json",
        json.dumps({"mcpServers": {"git": {"command": "uvx", "args": ["mcp-server-git"]}}}),
    )
    servers = load_servers(None, workspace, trusted=True, env={"TOKEN": "s3cret"})
    assert sorted(servers) == ["fs", "git", "remote"]
    assert servers["fs"].args == ("-y", "srv", f"{workspace}/src")
    assert servers["remote"].type == "http"
    assert servers["remote"].headers == {"Authorization": "Bearer s3cret"}
    assert servers["git"].type == "stdio" and servers["git"].command == "uvx"
    assert servers["git"].origin.endswith(".mcp.json")


def test_untrusted_workspace_files_are_ignored_and_reported(
    workspace: Path, tmp_path: Path
) -> None:
    write(workspace / ".mcp.json", json.dumps({"mcpServers": {"evil": {"command": "rm"}}}))
    assert load_servers(None, workspace, trusted=False) == {}
    config = load_config(workspace, env={}, trusted=False, user_file=tmp_path / "none")
    manager = McpManager.from_config(config, tools=None)
    assert manager.servers == {}
    assert any(".mcp.json" in notice for notice in manager.notices)


def test_untrusted_workspace_agentrc_servers_do_not_start(workspace: Path, tmp_path: Path) -> None:
    user = write(tmp_path / "user.agentrc", '[mcp.servers.mine]\ncommand = "my-server"\n')
    write(workspace / ".agentrc", '[mcp.servers.theirs]\ncommand = "their-server"\n')
    untrusted = McpManager.from_config(
        load_config(workspace, env={}, trusted=False, user_file=user), tools=None
    )
    assert sorted(untrusted.servers) == ["mine"]
    trusted = McpManager.from_config(
        load_config(workspace, env={}, trusted=True, user_file=user), tools=None
    )
    assert sorted(trusted.servers) == ["mine", "theirs"]


def test_agentrc_wins_over_workspace_json_on_a_name_clash(workspace: Path) -> None:
    write(workspace / ".mcp.json", json.dumps({"mcpServers": {"s": {"command": "from-json"}}}))
    servers = load_servers({"servers": {"s": {"command": "from-agentrc"}}}, workspace, trusted=True)
    assert servers["s"].command == "from-agentrc"


def test_expand_variables(workspace: Path) -> None:
    assert expand("${workspaceFolder}/x", workspace, {}) == f"{workspace}/x"
    assert expand("a${env:HOME_X}b", workspace, {"HOME_X": "1"}) == "a1b"
    assert expand("${env:UNSET_VAR}", workspace, {}) == ""
    assert expand("${input:token}", workspace, {}) == "${input:token}"  # left for the user to see


def test_strip_jsonc_keeps_comment_markers_inside_strings() -> None:
    text = '{"url": "http://x//y", "a": "/* no */", // real\n "b": [1,],}'
    assert json.loads(strip_jsonc(text)) == {"url": "http://x//y", "a": "/* no */", "b": [1]}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"type": "stdio"}, "needs `command`"),
        ({"type": "http"}, "needs an http(s) `url`"),
        ({"url": "ftp://x"}, "needs an http(s) `url`"),
        ({"type": "websocket", "url": "ws://x"}, "not one of stdio, http, sse"),
        ({"command": "x", "args": "not-a-list"}, "list of strings"),
        ({"command": "x", "env": {"A": 1}}, "must be a string"),
        ("just a string", "must be an object"),
    ],
)
def test_bad_server_entries_name_the_key(workspace: Path, raw: object, message: str) -> None:
    with pytest.raises(ConfigError, match="servers.bad") as caught:
        parse_server("bad", raw, workspace=workspace, env={}, origin="f.json")  # type: ignore[arg-type]
    assert message in str(caught.value)


def test_broken_workspace_json_stops_with_the_file(workspace: Path) -> None:
    path = write(workspace / ".mcp.json", "{not json")
    with pytest.raises(ConfigError, match="not valid JSON") as caught:
        load_servers(None, workspace, trusted=True)
    assert caught.value.file == str(path)
    write(workspace / ".mcp.json", json.dumps({"mcpServers": ["a"]}))
    with pytest.raises(ConfigError, match="object of servers"):
        load_servers(None, workspace, trusted=True)


def test_disabled_server_is_not_started(workspace: Path) -> None:
    servers = load_servers(
        {"servers": {"off": {"command": "x", "disabled": True}}}, workspace, trusted=False
    )
    manager = McpManager(servers, tools=None, workspace=workspace)
    assert manager.servers["off"].status == "disabled"


def test_oauth_settings_are_read_and_the_secret_can_be_an_input(workspace: Path) -> None:
    entry = {
        "url": "https://example.test/mcp",
        "oauth": {
            "client_id": "agent-tui-1",
            "client_secret": "${input:secret}",
            "scopes": "mcp:read mcp:write",
        },
    }
    inputs = {"secret": {"description": "client secret", "password": True}}
    servers = load_servers(
        {"servers": {"remote": entry}, "inputs": inputs}, workspace, trusted=True
    )
    remote = servers["remote"]
    assert remote.oauth.client_id == "agent-tui-1"
    assert remote.oauth.scopes == ("mcp:read", "mcp:write")
    assert [spec.id for spec in remote.inputs] == ["secret"]  # asked for like any other input
    assert remote.with_inputs({"secret": "s3"}).oauth.client_secret == "s3"


@pytest.mark.parametrize(
    ("oauth", "key"),
    [
        ("client-id", "servers.remote.oauth"),
        ({"client_id": 7}, "servers.remote.oauth.client_id"),
        ({"scopes": [1, 2]}, "servers.remote.oauth.scopes"),
        ({"grant": "password"}, "servers.remote.oauth.grant"),
    ],
)
def test_malformed_oauth_settings_name_the_key(workspace: Path, oauth: object, key: str) -> None:
    entry = {"url": "https://example.test/mcp", "oauth": oauth}
    with pytest.raises(ConfigError) as caught:
        parse_server("remote", entry, workspace=workspace, env={}, origin=".mcp.json")
    assert caught.value.key == key


def test_claude_code_forms_expand_only_in_its_fields_of_mcp_json(workspace: Path) -> None:
    env = {"TOK": "t-1", "EMPTY": ""}
    entry = {
        "type": "http",
        "url": "https://${HOST:-example.test}/mcp",
        "headers": {"Authorization": "Bearer ${TOK}", "X-Empty": "${EMPTY:-fallback}"},
    }
    remote = parse_server(
        "r", entry, workspace=workspace, env=env, origin=".mcp.json", claude_code=True
    )
    assert remote.url == "https://example.test/mcp"
    assert remote.headers == {"Authorization": "Bearer t-1", "X-Empty": "fallback"}
    local = {"command": "${TOK}", "args": ["${TOK}"], "cwd": "${TOK}"}
    stdio = parse_server(
        "s", local, workspace=workspace, env=env, origin=".mcp.json", claude_code=True
    )
    assert (stdio.command, stdio.args, stdio.cwd) == ("t-1", ("t-1",), "${TOK}")  # not cwd
    # VS Code's file and .agentrc keep VS Code's meaning: ${TOK} is not a variable there.
    vscode = parse_server("s", local, workspace=workspace, env=env, origin=".vscode/mcp.json")
    assert vscode.command == "${TOK}"
    with pytest.raises(ConfigError, match=r"servers.s.args: \$\{NOPE\} is not set"):
        parse_server(
            "s",
            {"command": "x", "args": ["${NOPE}"]},
            workspace=workspace,
            env=env,
            origin=".mcp.json",
            claude_code=True,
        )
