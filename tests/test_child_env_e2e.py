"""Secrets are not handed to child processes (issue 10, item 5), through `agent-tui -p`.

A command the rules allow (`echo`, `env`) prints the keys it can see; what reaches the fake model
and the saved state is checked. `[tools.terminal.env]` widens or narrows it; a stdio MCP server
(server-everything's `get-env`, read-only so it runs without asking) gets a safe set plus its
entry's `env`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake
from tests.mcp.conftest import everything_home, everything_js  # noqa: F401  (fixture)

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-marker-0a1",
    "OPENAI_API_KEY": "sk-openai-marker-0b2",
    "MY_SECRET_TOKEN": "token-marker-0c3",
    "db_password": "password-marker-0d4",  # lower case: the match ignores case
    "LLM_CREDS": "creds-marker-0e5",  # named by [model] api_key_env, no telltale word
}
VISIBLE = {"VISIBLE_MARKER": "visible-0f6"}
RULES = '[tools.terminal.auto_approve]\n"echo" = true\n"env" = true\n'
PRINT_ENV = "echo $OPENAI_API_KEY $MY_SECRET_TOKEN $LLM_CREDS $db_password; env"


def run_env_command(
    tmp_path: Path,
    fake_llm: FakeLLM,
    user_config: str,
    workspace_config: str = "",
    *extra: str,
) -> str:
    """Run PRINT_ENV under the rules; the tool result the model got."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text('[model]\napi_key_env = "LLM_CREDS"\n' + user_config)
    ws = tmp_path / "ws"
    ws.mkdir()
    if workspace_config:
        (ws / ".agentrc").write_text(workspace_config)
    call = {"id": "t", "name": "run_in_terminal", "input": {"command": PRINT_ENV}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "done"}])
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "show the environment",
        "--on-approval",
        "deny",
        *extra,
        home=home,
        state=tmp_path / "state",
        env={**SECRETS, **VISIBLE},
    )
    assert proc.returncode == 0, proc.stderr
    result = json.dumps(fake_llm.requests[-1]["messages"][-1])
    assert "Exit code: 0" in result, result  # the rule ran it: the output is the command's
    return result


def saved_state(tmp_path: Path) -> str:
    files = [p for p in (tmp_path / "state").rglob("*") if p.is_file()]
    assert files  # a session and a terminal log were written
    return "".join(p.read_text(errors="replace") for p in files)


def test_terminal_commands_do_not_see_api_keys_or_secrets(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    result = run_env_command(tmp_path, fake_llm, RULES)
    assert "VISIBLE_MARKER=visible-0f6" in result  # env printed the environment
    assert "PATH=" in result and "HOME=" in result
    state = saved_state(tmp_path)
    for name, value in SECRETS.items():
        assert value not in result, f"{name} reached the model"
        assert value not in state, f"{name} was saved"


@pytest.mark.parametrize(
    ("policy", "seen", "unseen"),
    [
        ('inherit = "core"', ["PATH=", "HOME="], ["visible-0f6", *SECRETS.values()]),
        (
            'inherit = "none"\nset = { ONLY = "only-0g7" }',
            ["ONLY=only-0g7"],
            ["HOME=", "visible-0f6", *SECRETS.values()],
        ),
        ('include_only = ["visible_*"]', ["visible-0f6"], ["HOME=", *SECRETS.values()]),
        (
            'ignore_default_excludes = true\nexclude = ["OPENAI_*", "*_CREDS"]',
            ["token-marker-0c3", "password-marker-0d4", "visible-0f6"],
            ["sk-openai-marker-0b2", "creds-marker-0e5"],
        ),
        (
            'set = { MY_API_KEY = "set-key-0h8" }',
            ["MY_API_KEY=set-key-0h8"],
            list(SECRETS.values()),
        ),
    ],
    ids=["core", "none_and_set", "include_only", "ignore_default_excludes", "set_a_key"],
)
def test_terminal_env_policy_variants(
    tmp_path: Path, fake_llm: FakeLLM, policy: str, seen: list[str], unseen: list[str]
) -> None:
    result = run_env_command(tmp_path, fake_llm, RULES + "\n[tools.terminal.env]\n" + policy)
    for text in seen:
        assert text in result, text
    for text in unseen:
        assert text not in result, text


def test_an_untrusted_workspace_cannot_widen_the_environment(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    widen = "[tools.terminal.env]\nignore_default_excludes = true\n"
    result = run_env_command(tmp_path, fake_llm, RULES, widen)
    assert "token-marker-0c3" not in result
    # Trusted (--trust), the same file applies; the workspace file then carries the rules too.
    (tmp_path / "home").rename(tmp_path / "home-1")
    (tmp_path / "ws").rename(tmp_path / "ws-1")
    (tmp_path / "state").rename(tmp_path / "state-1")
    trusted = run_env_command(tmp_path, fake_llm, "", RULES + widen, "--trust")
    assert "token-marker-0c3" in trusted


def test_stdio_mcp_server_sees_only_a_safe_env_and_its_own(
    tmp_path: Path,
    fake_llm: FakeLLM,
    everything_js: Path,  # noqa: F811
) -> None:
    granted = 'env = { GRANTED = "granted-0i9", FROM_ENV = "${env:VISIBLE_MARKER}" }\n'
    home = everything_home(tmp_path / "home", everything_js, granted)
    ws = tmp_path / "ws"
    ws.mkdir()
    call = {"id": "m", "name": "mcp_everything_get-env", "input": {}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "done"}])
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "show the server's environment",
        "--on-approval",
        "deny",  # get-env is read-only: it runs without asking
        home=home,
        state=tmp_path / "state",
        env={**SECRETS, **VISIBLE},
    )
    assert proc.returncode == 0, proc.stderr
    result = json.dumps(fake_llm.requests[1]["messages"][-1])
    assert "granted-0i9" in result and "visible-0f6" in result  # named in its entry
    assert "VISIBLE_MARKER" not in result  # ... but not inherited as such
    assert "PATH" in result and "HOME" in result
    state = saved_state(tmp_path)
    for name, value in SECRETS.items():
        assert value not in result, f"{name} reached the model"
        assert value not in state, f"{name} was saved"
