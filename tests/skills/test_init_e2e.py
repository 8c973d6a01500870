"""/init (issue 16 item 4) surveys with read-only tools and proposes an AGENTS.md through
create_file, which asks for approval; with --on-approval deny nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli


def test_init_proposes_agents_md_through_create_file_which_asks_first(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "README.md").write_text("# demo\nRun `make test`.\n")
    survey = {"id": "c1", "name": "read_file", "input": {"path": "README.md"}}
    write = {
        "id": "c2",
        "name": "create_file",
        "input": {"path": "AGENTS.md", "content": "Run `make test`.\n"},
    }
    fake_llm.set_script([{"tool_calls": [survey]}, {"tool_calls": [write]}, {"text": "proposed"}])
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "k",
    }

    proc = run_cli(
        ws, "--provider", "anthropic", "--base-url", fake_llm.url, "--output-format", "stream-json",
        "--on-approval", "deny", "-p", "/init", env=env,
    )  # fmt: skip

    assert proc.returncode == 0, proc.stderr
    first = fake_llm.requests[0]
    assert "Write an `AGENTS.md` for this workspace" in json.dumps(first["messages"])
    offered = {t["name"] for t in first["tools"]}
    assert {"read_file", "list_dir", "create_file"} <= offered
    assert not offered & {"run_in_terminal", "apply_patch", "fetch_webpage"}
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    asked = [e for e in events if "approval" in e.get("type", "").lower()]
    assert any("create_file" in json.dumps(e) for e in asked), [e.get("type") for e in events]
    assert "# demo" in json.dumps(fake_llm.requests[1]["messages"][-1])  # the survey's result
    assert not (ws / "AGENTS.md").exists()  # denied: nothing written
