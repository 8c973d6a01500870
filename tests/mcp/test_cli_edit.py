"""``agent-tui mcp add | add-json | remove | get`` as real processes on temp ``.agentrc`` files
(issue 27 item 8): comments survive, bad input leaves the file byte for byte as it was."""

from __future__ import annotations

import json
import os
import sys
import tomllib
from pathlib import Path

import pytest

from tests.helpers import run_cli
from tests.mcp.fault import cli_env

ENV_SERVER = Path(__file__).parent / "servers" / "env_server.py"
USER_RC = """\
# my settings: keep this comment
[model]
provider = "anthropic"  # the one I pay for

# servers go below
[mcp]
connect_timeout_s = 20  # slow machine

[hooks]
# none yet
"""


def _mcp(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    proc = run_cli(ws, "mcp", *args, env=cli_env(tmp_path), timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def _user_rc(tmp_path: Path, text: str = USER_RC) -> Path:
    path = tmp_path / "home" / ".agentrc"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_add_call_and_remove_round_trip_keeps_every_comment(tmp_path: Path) -> None:
    rc = _user_rc(tmp_path)
    code, out, err = _mcp(
        tmp_path, "add", "envy", "--env", "GREETING=hi there", "--",
        sys.executable, str(ENV_SERVER), "--flag", "-x",
    )  # fmt: skip
    assert code == 0, err
    assert f"Added MCP server envy to {rc}" in out
    text = rc.read_text()
    for line in USER_RC.splitlines():
        assert line in text  # every comment and setting as it was
    entry = tomllib.loads(text)["mcp"]["servers"]["envy"]
    assert entry == {
        "command": sys.executable,
        "args": [str(ENV_SERVER), "--flag", "-x"],
        "env": {"GREETING": "hi there"},
    }
    code, out, err = _mcp(tmp_path, "list", "--json")
    assert code == 0, err
    [row] = json.loads(out)
    assert (row["name"], row["status"], row["tools"]) == ("envy", "running", 2)
    code, out, err = _mcp(tmp_path, "call", "envy", "getenv", '{"name": "GREETING"}')
    assert (code, out.strip()) == (0, "hi there"), err
    code, out, err = _mcp(tmp_path, "call", "envy", "argv")
    assert out.strip() == "--flag -x", err  # sys.argv[1:]: after the script
    code, out, err = _mcp(tmp_path, "remove", "envy")
    assert code == 0, err
    assert rc.read_text().strip() == USER_RC.strip()


def test_add_url_server_and_get_masks_header_and_env_values(tmp_path: Path) -> None:
    _user_rc(tmp_path)
    code, _, err = _mcp(
        tmp_path, "add", "web", "--url", "https://mcp.example/mcp",
        "--header", "Authorization: Bearer sekrit-77", "--header", "X-Ref: ${env:REF}",
    )  # fmt: skip
    assert code == 0, err
    code, out, err = _mcp(tmp_path, "get", "web")
    assert code == 0, err
    assert "sekrit-77" not in out
    assert "Authorization=****" in out and "X-Ref=${env:REF}" in out
    assert "url: https://mcp.example/mcp" in out
    code, out, err = _mcp(tmp_path, "get", "web", "--json")
    [definition] = json.loads(out)["definitions"]
    assert definition["defined_in"] == str(tmp_path / "home" / ".agentrc")
    assert definition["server"]["headers"]["Authorization"] == "****"
    assert definition["used"] is True


def test_add_json_takes_claude_code_server_json(tmp_path: Path) -> None:
    rc = _user_rc(tmp_path)
    server = {"type": "stdio", "command": sys.executable, "args": [str(ENV_SERVER)]}
    server["env"] = {"TOKEN": "abc"}
    code, _, err = _mcp(tmp_path, "add-json", "claude", json.dumps(server))
    assert code == 0, err
    assert tomllib.loads(rc.read_text())["mcp"]["servers"]["claude"] == server
    code, out, err = _mcp(tmp_path, "call", "claude", "getenv", '{"name": "TOKEN"}')
    assert (code, out.strip()) == (0, "abc"), err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("add-json", "j", '{"command": "x"'), "not valid JSON"),
        (("add-json", "j", '["x"]'), "must be an object"),
        (("add-json", "j", '{"type": "grpc", "command": "x"}'), "grpc"),
        (("add-json", "j", '{"type": "stdio", "args": ["a"]}'), "needs `command`"),
        (("add-json", "j", '{"type": "http"}'), "http(s) `url`"),
        (("add-json", "j", '{"command": "x", "args": "a b"}'), "args"),
        (("add-json", "j", '{"command": "x", "colour": "red"}'), "unknown key"),
        (("add-json", "j", '{"command": "x", "env": {"K": 1}}'), "env.K"),
        (("add-json", "j", '{"command": "${input:nope}"}'), "does not declare"),
        (("add", "j", "--env", "NOEQUALS", "--", "x"), "expected KEY=VALUE"),
        (("add", "j", "--env", "=v", "--", "x"), "expected KEY=VALUE"),
        (("add", "j", "--url", "https://a.example", "--header", "NoColon"), "Name: value"),
        (("add", "j"), "command after -- or its --url"),
        (("add", "j", "--url", "ftp://a.example"), "http(s) `url`"),
        (("add", "j", "--header", "A: b", "--", "x"), "need --url"),
        (("add", "bad name", "--", "x"), "letters, digits"),
        (("add", "old", "--", "y"), "already has an MCP server named 'old'"),
        (("remove", "nope"), "no MCP server named 'nope'"),
    ],
)
def test_bad_input_leaves_the_file_byte_identical(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    rc = _user_rc(tmp_path, USER_RC + '\n[mcp.servers.old]\ncommand = "x"  # mine\n')
    before = rc.read_bytes()
    code, out, err = _mcp(tmp_path, *args)
    assert code == 2 and said in err, (out, err)
    assert rc.read_bytes() == before
    assert sorted(p.name for p in rc.parent.iterdir()) == [".agentrc"]  # no temp file left


def test_force_replaces_and_keeps_the_comment_before_the_next_table(tmp_path: Path) -> None:
    rc = _user_rc(tmp_path, '[mcp.servers.a]\ncommand = "x"\n\n# b is mine\n[mcp.servers.b]\n'
                  'command = "y"\n')  # fmt: skip
    code, _, err = _mcp(tmp_path, "add", "a", "--force", "--", "z", "1")
    assert code == 0, err
    text = rc.read_text()
    assert "# b is mine\n" in text and text.index("# b is mine") < text.index("[mcp.servers.b]")
    servers = tomllib.loads(text)["mcp"]["servers"]
    assert servers == {"a": {"command": "z", "args": ["1"]}, "b": {"command": "y"}}


def test_workspace_scope_writes_the_folder_file_and_get_says_it_waits_for_trust(
    tmp_path: Path,
) -> None:
    _user_rc(tmp_path, '[mcp.servers.same]\ncommand = "from-user"\n')
    code, _, err = _mcp(tmp_path, "add", "same", "--scope", "workspace", "--", "from-ws")
    assert code == 0, err
    assert "not trusted" in err
    ws_rc = tmp_path / "ws" / ".agentrc"
    assert tomllib.loads(ws_rc.read_text())["mcp"]["servers"]["same"] == {"command": "from-ws"}
    code, out, err = _mcp(tmp_path, "get", "same", "--json")
    rows = {Path(d["defined_in"]).parent.name: d for d in json.loads(out)["definitions"]}
    assert rows["ws"]["used"] is False and "not trusted" in rows["ws"]["note"]
    assert rows["home"]["used"] is True
    code, _, err = _mcp(tmp_path, "remove", "same")  # user scope: the user's entry goes
    assert code == 0 and "same" not in (tmp_path / "home" / ".agentrc").read_text()
    code, _, err = _mcp(tmp_path, "remove", "same")
    assert code == 2 and "--scope workspace" in err


def test_a_new_user_file_is_private_and_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    code, _, err = _mcp(tmp_path, "add", "a", "--", "x")
    assert code == 0, err
    assert (tmp_path / "home" / ".agentrc").stat().st_mode & 0o777 == 0o600
    ws_rc = tmp_path / "ws" / ".agentrc"
    ws_rc.write_text("# shared\n")
    os.chmod(ws_rc, 0o640)
    code, _, err = _mcp(tmp_path, "add", "b", "--scope", "workspace", "--", "y")
    assert code == 0, err
    assert ws_rc.stat().st_mode & 0o777 == 0o640 and ws_rc.read_text().startswith("# shared\n")


def test_a_symlinked_user_file_is_written_through(tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "agentrc"
    dotfiles.parent.mkdir()
    dotfiles.write_text("# dotfiles\n")
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "home" / ".agentrc").symlink_to(dotfiles)
    code, _, err = _mcp(tmp_path, "add", "a", "--", "x")
    assert code == 0, err
    assert (tmp_path / "home" / ".agentrc").is_symlink()
    assert "[mcp.servers.a]" in dotfiles.read_text()


def test_a_workspace_file_linking_out_of_the_workspace_is_not_written(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.toml"
    outside.write_text("# not the workspace's\n")
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "ws" / ".agentrc").symlink_to(outside)
    code, _, err = _mcp(tmp_path, "add", "a", "--scope", "workspace", "--", "x")
    assert code == 2 and "outside the workspace" in err
    assert outside.read_text() == "# not the workspace's\n"
