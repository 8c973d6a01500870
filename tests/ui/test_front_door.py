"""One front door: a slash command typed in the app or given to ``-p`` runs once, in the core.

The app used to run a command's handler itself and then send the raw text, which the agent's
planner ran again: one ``/mcp.SERVER.PROMPT`` sent two ``prompts/get`` requests to the server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_tui.mcp.session import create_mcp
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake
from tests.mcp.conftest import ROOT
from tests.ui.app_helpers import running_app
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_idle, wait_until

PROMPT_SERVER = ROOT / "tests/mcp/servers/prompt_server.py"
COMMAND = "mcp.counter.review"


def server_entry(count_file: Path) -> str:
    """``~/.agentrc`` lines naming the counting prompt server as ``counter``."""
    return (
        f"[mcp.servers.counter]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(PROMPT_SERVER))}]\n"
        f"env = {{ PROMPT_COUNT_FILE = {json.dumps(str(count_file))} }}\n"
    )


async def test_app_runs_an_mcp_prompt_command_once(make_agent: MakeAgent, tmp_path: Path) -> None:
    count = tmp_path / "prompts_get.txt"
    (tmp_path / "home" / ".agentrc").write_text(server_entry(count), encoding="utf-8")
    h = make_agent([{"text": "Reviewed."}])
    deps = h.agent.deps
    deps.mcp = create_mcp(deps.config, deps.tools, deps.commands)
    assert deps.mcp is not None
    try:
        async with running_app(h.agent, size=(100, 30)) as (app, pilot):
            await wait_until(pilot, lambda: deps.commands.get(COMMAND), f"/{COMMAND} listed")
            await send(pilot, f"/{COMMAND} topic=parser")
            await wait_idle(pilot)
    finally:
        await deps.mcp.aclose()
    assert count.read_text(encoding="utf-8").splitlines() == ["parser"]  # one prompts/get
    assert len(h.provider.requests) == 1
    assert "Please review parser." in h.provider.requests[0].messages[-1].text


def test_headless_runs_an_mcp_prompt_command_once(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws, home, count = tmp_path / "ws", tmp_path / "home", tmp_path / "prompts_get.txt"
    ws.mkdir()
    home.mkdir()
    (home / ".agentrc").write_text(server_entry(count), encoding="utf-8")
    fake_llm.set_script([{"text": "Reviewed."}])
    proc = run_on_fake(
        ws, fake_llm, "-p", f"/{COMMAND} topic=parser", home=home, state=tmp_path / "state"
    )
    assert proc.returncode == 0, proc.stderr
    assert count.read_text(encoding="utf-8").splitlines() == ["parser"]
    assert len(fake_llm.requests) == 1
    assert "Please review parser." in json.dumps(fake_llm.requests[0])
