"""Azure OpenAI (issue 14.6): `provider = "azure-openai"` through the openai SDK's
AsyncAzureOpenAI, pointed at the fake server as the resource endpoint."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

KEY = "azure-SECRET-key-123"


def run(
    tmp_path: Path, fake: FakeLLM, *args: str, key: str = KEY, endpoint_env: bool = False
) -> subprocess.CompletedProcess[str]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    (ws / "main.py").write_text("print('azure-file-9')\n")
    url = "" if endpoint_env else f'base_url = "{fake.url}"\n'
    (home / ".agentrc").write_text(
        f'[model]\nprovider = "azure-openai"\nname = "my-deployment"\n{url}'
    )
    env = {
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "HOME": str(home),
        "AZURE_OPENAI_API_KEY": key,
    }
    if endpoint_env:
        env["AZURE_OPENAI_ENDPOINT"] = fake.url  # the SDK's own variable
    return run_cli(ws, *args, env=env, timeout=60)


def test_a_tool_round_through_the_azure_client(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.api_key = KEY
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "It prints azure-file-9."},
        ]
    )
    proc = run(tmp_path, fake_llm, "-p", "what does main.py print?", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["result"] == "It prints azure-file-9."
    first = fake_llm.received[0]
    assert first["path"] == (
        "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    )
    assert first["headers"].get("api-key") == KEY
    assert "max_completion_tokens" in first["body"]
    tool = [m for m in fake_llm.requests[1]["messages"] if m["role"] == "tool"]
    assert "azure-file-9" in tool[0]["content"]


def test_a_refused_key_is_named_not_shown(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.api_key = "the-right-key"
    fake_llm.set_script([{"text": "never"}])
    proc = run(tmp_path, fake_llm, "-p", "hi")
    assert proc.returncode == 1
    assert "$AZURE_OPENAI_API_KEY" in proc.stderr
    assert KEY not in proc.stderr + proc.stdout and "SECRET" not in proc.stderr


def test_rate_limits_are_retried(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "after the retry", "fault": {"status": 429, "retry_after": 0}}])
    proc = run(tmp_path, fake_llm, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "after the retry\n"
    assert len(fake_llm.received) == 2


def test_the_endpoint_may_come_from_the_sdk_variable(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "hello from the deployment"}])
    proc = run(tmp_path, fake_llm, "-p", "hi", endpoint_env=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "hello from the deployment\n"
    assert fake_llm.received[0]["path"].startswith("/openai/deployments/my-deployment/")


def test_no_endpoint_is_a_config_error(tmp_path: Path, fake_llm: FakeLLM) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".agentrc").write_text('[model]\nprovider = "azure-openai"\n')
    env = {
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "HOME": str(tmp_path / "home"),
        "AZURE_OPENAI_API_KEY": KEY,
    }
    proc = run_cli(tmp_path / "ws", "-p", "hi", env=env, timeout=60)
    assert proc.returncode == 2
    assert "RESOURCE.openai.azure.com" in proc.stderr
