"""terminal_environment: Codex's shell environment policy, step by step (the e2e tests in
tests/test_child_env_e2e.py drive it through `agent-tui -p`)."""

from __future__ import annotations

from agent_tui.tools.terminal_env import terminal_environment

BASE = {
    "PATH": "/usr/bin",
    "HOME": "/home/u",
    "LANG": "C.UTF-8",
    "GITHUB_TOKEN": "t",
    "aws_secret_access_key": "s",
    "PGPASSWORD": "p",
    "Api_Key": "k",
    "LLM_CREDS": "c",
    "AGENT_TUI_INPUT_DB": "i",
    "EDITOR": "vi",
}


def test_default_drops_secret_names_in_any_case_and_the_api_key_variable() -> None:
    env = terminal_environment(BASE, None, ["LLM_CREDS"])
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "EDITOR": "vi"}


def test_core_keeps_only_the_core_variables_and_the_locale() -> None:
    env = terminal_environment(BASE, {"inherit": "core"})
    assert env == {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8"}


def test_set_comes_after_the_excludes_and_include_only_last() -> None:
    settings = {"set": {"MY_TOKEN": "mine", "OTHER": "x"}, "include_only": ["*token", "path"]}
    assert terminal_environment(BASE, settings) == {"PATH": "/usr/bin", "MY_TOKEN": "mine"}


def test_ignore_default_excludes_keeps_secrets_but_exclude_still_applies() -> None:
    settings = {"ignore_default_excludes": True, "exclude": ["github_*", "LLM_?REDS"]}
    env = terminal_environment(BASE, settings, ["LLM_CREDS"])
    assert "PGPASSWORD" in env and "Api_Key" in env
    assert "GITHUB_TOKEN" not in env and "LLM_CREDS" not in env


def test_none_starts_empty() -> None:
    assert terminal_environment(BASE, {"inherit": "none", "set": {"A": "1"}}) == {"A": "1"}
