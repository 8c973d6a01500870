"""``${input:ID}`` in server configs: declared inputs, where values come from, asking, failing.

The values are observed in a real stdio server (``servers/env_server.py``) that reports its
environment and arguments.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.config import load_config
from agent_tui.errors import ConfigError
from agent_tui.mcp.config import load_servers, user_input_values
from agent_tui.mcp.inputs import env_var
from agent_tui.mcp.manager import McpManager
from agent_tui.mcp.types import InputSpec, McpHooks, render_parts
from tests.mcp.conftest import ENV_SERVER, MakeManager

KEY = {"key": {"description": "Search API key", "password": True}}


def env_server(*args: str, **env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(ENV_SERVER), *args], "env": env}


async def server_env(manager: McpManager, server: str, name: str) -> str:
    outcome = await manager.call_tool(server, "getenv", {"name": name})
    return render_parts(outcome.parts)


class Asker:
    """An ``ask_input`` hook that answers from a table (None: cancelled) and records questions."""

    def __init__(self, answers: dict[str, str | None]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, InputSpec]] = []

    async def __call__(self, server: str, spec: InputSpec) -> str | None:
        self.asked.append((server, spec))
        await asyncio.sleep(0)  # let other servers reach the same question meanwhile
        return self.answers[spec.id]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---- parsing ----------------------------------------------------------------------------------


def test_vscode_inputs_are_parsed_and_the_template_kept(workspace: Path) -> None:
    write(
        workspace / ".vscode" / "mcp.json",
        json.dumps(
            {
                "inputs": [
                    {"type": "promptString", "id": "api-key", "description": "Key", "password": True},
                    {"type": "pickString", "id": "region", "options": ["eu", {"label": "US", "value": "us"}], "default": "eu"},
                    {"type": "promptString", "id": "unused"},
                ],
                "servers": {
                    "search": {
                        "command": "npx",
                        "args": ["--region=${input:region}"],
                        "env": {"API_KEY": "${input:api-key}", "HOME_DIR": "${userHome}"},
                    }
                },
            }
        ),
    )  # fmt: skip
    search = load_servers(None, workspace, trusted=True)["search"]
    assert search.env["API_KEY"] == "${input:api-key}"  # filled in only when it starts
    assert search.env["HOME_DIR"] == str(Path.home())
    assert search.inputs == (
        InputSpec("region", default="eu", options=("eu", "us")),
        InputSpec("api-key", "Key", password=True),
    )
    filled = search.with_inputs({"api-key": "s3cret", "region": "us"})
    assert filled.env["API_KEY"] == "s3cret" and filled.args == ("--region=us",)
    assert "s3cret" not in search.describe()


def test_agentrc_inputs_declare_agentrc_servers_inputs(workspace: Path, tmp_path: Path) -> None:
    user = write(
        tmp_path / "user.agentrc",
        '[mcp.servers.s]\ncommand = "srv"\nargs = ["${input:token}"]\n'
        '[mcp.inputs.token]\ndescription = "Token"\npassword = true\ndefault = "t0"\n'
        '[mcp.input_values]\ntoken = "from-file"\n',
    )
    config = load_config(workspace, env={}, user_file=user)
    assert McpManager.from_config(config, None).servers["s"].config.inputs == (
        InputSpec("token", "Token", password=True, default="t0"),
    )
    assert user_input_values(config) == {"token": "from-file"}


@pytest.mark.parametrize(
    ("inputs", "key", "message"),
    [
        ({"inputs": {}}, "inputs", "must be a list"),
        ({"inputs": ["api-key"]}, "inputs[0]", "must be an object"),
        ({"inputs": [{"type": "promptString"}]}, "inputs[0]", "needs a string `id`"),
        ({"inputs": [{"id": 7}]}, "inputs[0]", "needs a string `id`"),
        ({"inputs": [{"id": "k", "type": "command"}]}, "inputs.k.type", "not supported"),
        ({"inputs": [{"id": "k", "type": "pickString"}]}, "inputs.k", "needs `options`"),
        ({"inputs": [{"id": "k", "password": "yes"}]}, "inputs.k.password", "true or false"),
    ],
)
def test_bad_inputs_name_the_file_and_key(
    workspace: Path, inputs: dict[str, Any], key: str, message: str
) -> None:
    servers = {"s": {"command": "srv", "env": {"K": "${input:k}"}}}
    path = write(workspace / ".vscode" / "mcp.json", json.dumps({**inputs, "servers": servers}))
    with pytest.raises(ConfigError) as caught:
        load_servers(None, workspace, trusted=True)
    assert caught.value.file == str(path) and caught.value.key == key
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"inputs": [{"id": "other"}]}, "${input:k}, which its `inputs` list"),
        ({}, "does not declare"),
    ],
)
def test_an_undeclared_input_fails_only_its_server(
    workspace: Path, inputs: dict[str, Any], message: str
) -> None:
    servers = {"s": {"command": "srv", "env": {"K": "${input:k}"}}, "ok": {"command": "srv"}}
    path = write(workspace / ".vscode" / "mcp.json", json.dumps({**inputs, "servers": servers}))
    loaded = load_servers(None, workspace, trusted=True)
    assert loaded["ok"].problem == ""
    assert loaded["s"].problem.startswith(f"{path}: servers.s: ")
    assert message in loaded["s"].problem


def test_agentrc_server_with_an_undeclared_input_is_refused(workspace: Path) -> None:
    raw = {"servers": {"s": {"command": "srv", "args": ["${input:nope}"]}}}
    problem = load_servers(raw, workspace, trusted=False)["s"].problem
    assert problem.startswith(".agentrc: servers.s: ")
    assert "[mcp.inputs] does not declare" in problem


def test_agentrc_inputs_schema_rejects_unknown_keys(workspace: Path, tmp_path: Path) -> None:
    user = write(tmp_path / "user.agentrc", '[mcp.inputs.k]\nprompt = "x"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(workspace, env={}, user_file=user)
    assert caught.value.key == "mcp.inputs.k.prompt"


def test_workspace_agentrc_cannot_supply_input_values(workspace: Path, tmp_path: Path) -> None:
    user = write(tmp_path / "user.agentrc", '[mcp.input_values]\nk = "mine"\n')
    write(workspace / ".agentrc", '[mcp.input_values]\nk = "theirs"\nextra = "x"\n')
    config = load_config(workspace, env={}, trusted=True, user_file=user)
    assert user_input_values(config) == {"k": "mine"}
    manager = McpManager.from_config(config, None)
    assert any("[mcp.input_values] are ignored" in notice for notice in manager.notices)
    # Untrusted, a workspace .agentrc with nothing else under [mcp] asks no trust question.
    write(workspace / ".agentrc", '[mcp.input_values]\nk = "theirs"\n')
    untrusted = load_config(workspace, env={}, trusted=False, user_file=user)
    assert untrusted.ignored_untrusted == () and untrusted.ignored_user_only == (
        "mcp.input_values",
    )
    assert user_input_values(untrusted) == {"k": "mine"}


def test_env_var_names() -> None:
    assert env_var("api-key") == "AGENT_TUI_INPUT_API_KEY"
    assert env_var("db.Password2") == "AGENT_TUI_INPUT_DB_PASSWORD2"


# ---- values, against a real server ------------------------------------------------------------


async def test_values_come_from_user_file_then_env_then_asking(
    make_manager: MakeManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_INPUT_FROM_ENV", "env-value")
    monkeypatch.setenv("AGENT_TUI_INPUT_FROM_FILE", "env-loses")
    asker = Asker({"asked": "typed-value"})
    inputs = {"from-file": {}, "from-env": {}, "asked": {}}
    manager, _ = await make_manager(
        {"e": env_server("--token=${input:asked}", A="${input:from-file}", B="${input:from-env}")},
        McpHooks(ask_input=asker),
        inputs=inputs,
        input_values={"from-file": "file-value"},
    )
    assert manager.servers["e"].status == "running", manager.servers["e"].error
    assert [await server_env(manager, "e", name) for name in "AB"] == ["file-value", "env-value"]
    argv = await manager.call_tool("e", "argv", {})
    assert render_parts(argv.parts) == "--token=typed-value"
    assert [spec.id for _, spec in asker.asked] == ["asked"]
    log = manager.servers["e"].log_path.read_text(encoding="utf-8")
    assert "typed-value" not in log and "${input:asked}" in log  # secrets stay out of the log


async def test_an_input_is_asked_once_per_session_for_two_servers(
    make_manager: MakeManager,
) -> None:
    asker = Asker({"key": "s3cret"})
    manager, _ = await make_manager(
        {"one": env_server(K="${input:key}"), "two": env_server(K="${input:key}")},
        McpHooks(ask_input=asker),
        inputs=KEY,
    )
    assert [await server_env(manager, name, "K") for name in ("one", "two")] == ["s3cret"] * 2
    server, spec = asker.asked[0]
    assert len(asker.asked) == 1 and spec == InputSpec("key", "Search API key", password=True)
    await manager.restart("two")
    assert await server_env(manager, "two", "K") == "s3cret" and len(asker.asked) == 1


async def test_headless_server_without_a_value_fails_saying_how_to_give_one(
    make_manager: MakeManager,
) -> None:
    manager, registry = await make_manager({"e": env_server(K="${input:key}")}, inputs=KEY)
    state = manager.servers["e"]
    assert state.status == "failed" and state.connection is None
    assert state.error == (
        "input 'key' (Search API key) has no value and there is nobody to ask: set it in "
        '~/.agentrc under [mcp.input_values] ("key" = "..."), or in the environment as '
        "AGENT_TUI_INPUT_KEY, or answer the question when the server starts in the TUI"
    )
    assert "mcp_e_getenv" not in registry


async def test_headless_uses_an_inputs_default(make_manager: MakeManager) -> None:
    manager, _ = await make_manager(
        {"e": env_server(K="${input:key}")}, inputs={"key": {"default": "fallback"}}
    )
    assert await server_env(manager, "e", "K") == "fallback"


async def test_cancelled_question_fails_every_waiting_server_and_restart_asks_again(
    make_manager: MakeManager,
) -> None:
    asker = Asker({"key": None})
    manager, _ = await make_manager(
        {"one": env_server(K="${input:key}"), "two": env_server(K="${input:key}")},
        McpHooks(ask_input=asker),
        inputs=KEY,
    )
    for name in ("one", "two"):
        assert manager.servers[name].status == "failed"
        assert "input 'key' (Search API key) was not given" in manager.servers[name].error
    assert len(asker.asked) == 1  # the server waiting on the same question gave up with it
    asker.answers["key"] = "later"
    state = await manager.restart("one")
    assert state.status == "running" and len(asker.asked) == 2
    assert await server_env(manager, "one", "K") == "later"
