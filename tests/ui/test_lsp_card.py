"""An edit's card says how many new problems its language server found (issue 26 item 3): the
real ruff server, the app under Pilot, the fake LLM server."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.fakes.llm_server import FakeLLM
from tests.helpers import missing
from tests.ui.helpers import send, wait_idle


async def test_an_edit_card_counts_the_new_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if ruff is None:
        missing("ruff is not installed")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    write = {"path": "n.py", "content": "import os\nimport sys\n"}
    fake_llm.set_script(
        [{"tool_calls": [{"id": "w", "name": "create_file", "input": write}]}, {"text": "Done."}]
    )
    layer = {
        "model": {"provider": "anthropic", "name": "claude-x", "base_url": fake_llm.url},
        "lsp": {
            "wait_s": 20,
            "servers": {"ruff": {"command": [ruff, "server"], "patterns": ["*.py"]}},
        },
    }
    config = load_config(
        workspace, cli=layer, env={"ANTHROPIC_API_KEY": "k"}, user_file=tmp_path / "rc"
    )
    app = AgentApp(build_agent(config, allow_tools=["create_file"]))

    async with app.run_test(size=(100, 32)) as pilot:
        await send(pilot, "write n.py")
        await wait_idle(pilot)
        (card,) = [c for c in app.query(ToolCard) if c.state.name == "create_file"]
        assert card.state.note == "2 new problems (language server)"
        assert "n.py:2:8 warning `sys` imported but unused" in card.state.output
        await app.shutdown_agent()
