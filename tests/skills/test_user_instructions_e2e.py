"""The user-level `~/.agent/AGENTS.md` (issue 16 item 4) joins the system prompt, before the
workspace's own instructions, through `agent-tui -p` against the fake server."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli


def test_user_agents_md_joins_the_system_prompt_before_the_workspaces(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".agent").mkdir(parents=True)
    ws.mkdir()
    (home / ".agent" / "AGENTS.md").write_text("Answer in British English.\n")
    (ws / "AGENTS.md").write_text("Run `make check` before finishing.\n")
    fake_llm.set_script([{"text": "ok"}])
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "k",
    }

    proc = run_cli(ws, "--provider", "anthropic", "--base-url", fake_llm.url, "-p", "hi", env=env)

    assert proc.returncode == 0, proc.stderr
    system = json.dumps(fake_llm.requests[0]["system"])
    user = system.index('<instructions file=\\"~/.agent/AGENTS.md\\">\\nAnswer in British English.')
    assert user < system.index("Run `make check`")
