"""The variable `[model] api_key_env` names reaches no child process (issue 22 §11).

`LLM_CRED` holds the key and says nothing of being a secret, so the name-based excludes miss it.
Each child kind runs under `agent-tui -p --yolo` against the fake server, with the key's value
exported; what reached the model (and, for git, what git itself was given) must not hold it:
terminal commands, hooks, stdio MCP servers (unless their entry names the variable), sub-agents
and git. Two routes: the key the model uses, and a key named in a layer the final model does
not use (the user's file pins another provider than `--provider`), plus a `[models.*]` alias's.
`!command` (app only) is checked with Pilot.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli
from tests.mcp.conftest import ENV_SERVER

SECRETS = {"LLM_CRED": "cred-value-4417", "ALIAS_CRED": "alias-value-5528"}
PRINT = 'echo "seen=[$LLM_CRED][$ALIAS_CRED]"; env'
ROUTES = {
    # The key the run uses (the fake server takes any key).
    "used": ('[model]\napi_key_env = "LLM_CRED"\n', ["--provider", "anthropic"]),
    # Named for anthropic in the file; the run is pinned to another provider on the command line.
    "other_provider": (
        '[model]\nprovider = "openai"\napi_key_env = "LLM_CRED"\n',
        ["--provider", "anthropic"],
    ),
}


def run_children(
    tmp_path: Path, fake: FakeLLM, route: str, script: list[dict[str, Any]], rc: str = ""
) -> tuple[Any, str]:
    """`agent-tui -p go --yolo` with ``script``; returns the process and every request's text."""
    model_rc, flags = ROUTES[route]
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    alias = '[models.fast]\nprovider = "openai"\napi_key_env = "ALIAS_CRED"\n'
    (home / ".agentrc").write_text(model_rc + alias + rc)
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    fake.set_script(script)
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "sk-ant-unused",
        "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
        **SECRETS,
    }
    proc = run_cli(ws, "-p", "go", "--yolo", *flags, "--base-url", fake.url, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc, json.dumps(fake.requests)


def assert_hidden(seen: str) -> None:
    for name, value in SECRETS.items():
        assert value not in seen, f"{name} reached a child"


def call(tool: str, call_id: str = "c1", **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": tool, "input": arguments}]}


@pytest.mark.parametrize("route", list(ROUTES))
def test_terminal_commands_do_not_see_the_api_key_variable(
    tmp_path: Path, fake_llm: FakeLLM, route: str
) -> None:
    # Even a policy that drops the name-based excludes keeps the app's own keys out.
    policy = "[tools.terminal.env]\nignore_default_excludes = true\n"
    _, sent = run_children(
        tmp_path, fake_llm, route, [call("run_in_terminal", command=PRINT), {"text": "ok"}], policy
    )
    assert "seen=[][]" in sent and "HOME=" in sent  # the command ran and printed its env
    assert_hidden(sent)


def test_hooks_do_not_see_the_api_key_variable(tmp_path: Path, fake_llm: FakeLLM) -> None:
    hook = (
        "[[hooks.UserPromptSubmit]]\n[[hooks.UserPromptSubmit.hooks]]\n"
        f'type = "command"\ncommand = {json.dumps(PRINT)}\n'
    )
    _, sent = run_children(tmp_path, fake_llm, "other_provider", [{"text": "ok"}], hook)
    assert "seen=[][]" in sent  # the hook's stdout went with the prompt
    assert_hidden(sent)


def test_stdio_mcp_servers_get_the_key_only_when_their_entry_names_it(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    servers = (
        f"[mcp.servers.plain]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(ENV_SERVER))}]\n"
        f"[mcp.servers.named]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(ENV_SERVER))}]\n"
        'env = { GIVEN = "${env:LLM_CRED}" }\n'
    )
    script = [
        call("mcp_plain_getenv", "c1", name="LLM_CRED"),
        call("mcp_named_getenv", "c2", name="GIVEN"),
        {"text": "ok"},
    ]
    _, sent = run_children(tmp_path, fake_llm, "used", script, servers)
    results = json.dumps(fake_llm.requests[1]["messages"][-1])
    assert "(unset)" in results
    named = json.dumps(fake_llm.requests[2]["messages"][-1])
    assert SECRETS["LLM_CRED"] in named  # named on purpose in its entry: passed


def test_sub_agents_commands_do_not_see_the_api_key_variable(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    agents = tmp_path / "ws" / ".agent" / "agents"
    agents.mkdir(parents=True)
    (agents / "runner.md").write_text(
        "---\nname: runner\ndescription: Runs commands\ntools: Bash\n---\nRun what you are told.\n"
    )
    script = [
        call("run_agent", "p1", agent="runner", task="print the environment"),
        call("run_in_terminal", "s1", command=PRINT),
        {"text": "child done"},
        {"text": "parent done"},
    ]
    _, sent = run_children(tmp_path, fake_llm, "other_provider", script)
    assert "seen=[][]" in sent
    assert_hidden(sent)


def test_git_runs_do_not_see_the_api_key_variable(tmp_path: Path, fake_llm: FakeLLM) -> None:
    # A `git` first on PATH that records its environment, then runs the real one.
    real_git = next(
        str(Path(folder) / "git")
        for folder in os.environ["PATH"].split(os.pathsep)
        if (Path(folder) / "git").is_file()
    )
    record = tmp_path / "git-env.txt"
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nenv >> "{record}"\nexec "{real_git}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    ws = tmp_path / "ws"
    ws.mkdir()
    subprocess.run([real_git, "init", "-q"], cwd=ws, check=True)
    (ws / "a.txt").write_text("changed\n")
    load = {
        "tool_calls": [{"id": "s0", "name": "tool_search", "input": {"query": "get_changed_files"}}]
    }  # it waits behind tool_search
    script = [load, call("get_changed_files"), {"text": "ok"}]
    # The wrapper writes its record outside the workspace, which the sandbox (where the app's
    # own git runs read-only) would refuse: this test is about the environment, so it is off.
    off = '[sandbox]\nmode = "off"\n'
    _, sent = run_children(tmp_path, fake_llm, "other_provider", script, rc=off)
    assert "a.txt" in sent  # git ran (through the wrapper) and its answer reached the model
    recorded = record.read_text()
    assert "GIT_PAGER=cat" in recorded
    assert_hidden(recorded)
    assert_hidden(sent)


async def test_bang_commands_do_not_see_the_api_key_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    from agent_tui.build import build_agent
    from agent_tui.config import load_config
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.shell_command import ShellCard
    from tests.ui.helpers import send, wait_idle

    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path))
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    user = tmp_path / "user.agentrc"
    user.write_text(ROUTES["other_provider"][0])
    cli = {"model": {"provider": "anthropic", "base_url": fake_llm.url}}
    env = {"ANTHROPIC_API_KEY": "sk-ant-unused", **SECRETS}
    agent = build_agent(load_config(workspace, env=env, user_file=user, cli=cli))
    app = AgentApp(agent)
    fake_llm.set_script([{"text": "seen"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, f"!{PRINT}")
        await wait_idle(pilot)
        card = app.query_one(ShellCard)
        assert "seen=[]" in card.output and "HOME=" in card.output
        await send(pilot, "what did it print?")
        await wait_idle(pilot)
        sent = json.dumps(fake_llm.requests)
        assert "seen=[]" in sent
        assert SECRETS["LLM_CRED"] not in sent and SECRETS["LLM_CRED"] not in card.output
        await app.shutdown_agent()
