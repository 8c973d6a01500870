"""Tests do not pick up the environment of the person running them (issue 13, item 3).

With ``AGENT_TUI_PROVIDER=openai`` exported, two MCP end-to-end tests used to fail: the helpers
passed the whole environment on, so the child talked to another provider. Both the processes a
test starts (``run_cli``, ``clean_env``) and in-process code (the autouse fixture in conftest.py)
now see none of the person's agent-tui settings, keys, base URLs, HOME or XDG dirs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import clean_env, run_cli

ROOT = Path(__file__).resolve().parents[1]
# What a developer may well have exported; each would steer a test's agent-tui elsewhere.
PERSONAL = {
    "AGENT_TUI_PROVIDER": "openai",
    "AGENT_TUI_MODEL": "bogus",
    "AGENT_TUI_BASE_URL": "http://127.0.0.1:9/v1",
    "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
    "ANTHROPIC_API_KEY": "sk-ant-personal",
    "OPENAI_API_KEY": "sk-openai-personal",
    "AGENT_TUI_USER_CONFIG": "/nonexistent/personal.agentrc",
    "XDG_CONFIG_HOME": "/nonexistent/personal-config",
    "https_proxy": "http://127.0.0.1:9",
}


def test_run_cli_children_ignore_the_person_s_settings_keys_and_base_urls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in PERSONAL.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "home"
    home.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "scripted answer"}]))
    (home / ".agentrc").write_text(f'[model]\nprovider = "scripted"\nscript = "{script}"\n')
    ws = tmp_path / "ws"
    ws.mkdir()

    done = run_cli(
        ws,
        *("-p", "hello", "--output-format", "json"),
        env={"HOME": str(home), "AGENT_TUI_STATE_DIR": str(tmp_path / "state")},
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1])["result"] == "scripted answer"


def test_clean_env_drops_every_personal_variable_and_homes_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**PERSONAL, "MISTRAL_API_KEY": "k", "GROQ_BASE_URL": "u"}.items():
        monkeypatch.setenv(name, value)

    env = clean_env({"HOME": str(tmp_path), "AGENT_TUI_STATE_DIR": str(tmp_path / "state")})

    assert not ({"MISTRAL_API_KEY", "GROQ_BASE_URL", *PERSONAL} - {"XDG_CONFIG_HOME"}) & set(env)
    assert env["HOME"] == str(tmp_path) and env["AGENT_TUI_STATE_DIR"] == str(tmp_path / "state")
    assert env["XDG_CONFIG_HOME"] == str(tmp_path / ".config")
    assert "PATH" in env  # the rest of the environment is kept
    assert Path(clean_env()["HOME"]).name.startswith("agent-tui-test-home-")  # none given


INNER_TEST = """
import os
from pathlib import Path

from agent_tui.config import load_config
from agent_tui.paths import state_dir, user_config_path

PERSONAL = {personal!r}


def test_environment_seen_in_process(tmp_path):
    assert not [name for name, value in PERSONAL.items() if os.environ.get(name) == value]
    assert Path.home() != Path({personal_home!r})
    assert not str(state_dir()).startswith({personal_home!r})
    assert not str(user_config_path()).startswith({personal_home!r})
    config = load_config(tmp_path)
    assert config.model.provider == "anthropic" and config.model.name != "bogus"
"""


def test_in_process_tests_see_no_personal_settings(tmp_path: Path) -> None:
    """A test run under the person's exported settings and HOME (whose ~/.agentrc picks
    another provider) sees none of them: the autouse fixture of tests/conftest.py."""
    personal_home = tmp_path / "personal-home"
    personal_home.mkdir()
    (personal_home / ".agentrc").write_text('[model]\nprovider = "openai"\nname = "bogus"\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "conftest.py").write_text("from tests.conftest import isolated_environment  # noqa\n")
    (inner / "test_inner.py").write_text(
        INNER_TEST.format(personal=PERSONAL, personal_home=str(personal_home))
    )
    env = {**clean_env(), **PERSONAL, "HOME": str(personal_home), "PYTHONPATH": str(ROOT)}
    env["AGENT_TUI_USER_CONFIG"] = str(personal_home / ".agentrc")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-o", "asyncio_default_fixture_loop_scope=function", str(inner)],
        cwd=inner, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "1 passed" in done.stdout
