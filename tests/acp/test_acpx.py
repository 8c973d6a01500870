"""``agent-tui acp`` driven by acpx (npm), a headless ACP client nobody here wrote: one turn with
a tool call, its approval answered both ways (acpx's --approve-all and --deny-all)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, missing, new_workspace

ROOT = Path(__file__).resolve().parents[2]
ACPX = ROOT / "tests" / ".mcp-servers" / "node_modules" / ".bin" / "acpx"
CREATE = {"id": "c1", "name": "create_file", "input": {"path": "hello.txt", "content": "hi\n"}}


def _acpx(
    ws: Path,
    fake: FakeLLM,
    home: Path,
    policy: str,
    exit_code: int,
    extra_env: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """``acpx exec`` of one prompt; returns the JSON-RPC messages it printed (--format json)."""
    if not ACPX.exists():
        missing("acpx is not installed (scripts/setup.sh dev)")
    agent = shlex.join(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "acp",
            "--provider",
            "anthropic",
            "--base-url",
            fake.url,
        ]
    )
    env = {"HOME": str(home), "AGENT_TUI_STATE_DIR": str(home / "state"), "ANTHROPIC_API_KEY": "k"}
    env.update(extra_env or {})
    done = subprocess.run(
        [str(ACPX), "--cwd", str(ws), "--agent", agent, policy, "--format", "json", "--ttl", "0"]
        + ["exec", "make hello.txt"],
        cwd=ws,
        env=clean_env(env),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert done.returncode == exit_code, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def _updates(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        m["params"]["update"]
        for m in messages
        if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == kind
    ]


@pytest.mark.parametrize(
    ("policy", "written", "status", "exit_code"),
    # acpx exits 5 (its PERMISSION_DENIED) when it denied a request during the run.
    [("--approve-all", True, "completed", 0), ("--deny-all", False, "failed", 5)],
)
def test_acpx_runs_a_turn_with_an_approval(
    tmp_path: Path, fake_llm: FakeLLM, policy: str, written: bool, status: str, exit_code: int
) -> None:
    ws = new_workspace(tmp_path, home=True)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"text": "Done here."}])
    messages = _acpx(ws, fake_llm, tmp_path / "home", policy, exit_code)
    asked = [m for m in messages if m.get("method") == "session/request_permission"]
    assert len(asked) == 1 and asked[0]["params"]["toolCall"]["kind"] == "edit"
    (call,) = _updates(messages, "tool_call")
    assert call["toolCallId"] == "c1" and call["content"][0]["type"] == "diff"
    assert _updates(messages, "tool_call_update")[-1]["status"] == status
    assert (ws / "hello.txt").exists() is written
    text = "".join(u["content"]["text"] for u in _updates(messages, "agent_message_chunk"))
    assert text == "Done here."
    assert [m["result"]["stopReason"] for m in messages if "stopReason" in m.get("result", {})] == [
        "end_turn"
    ]


def test_acpx_reads_edits_and_runs_through_its_fs_and_terminal(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """acpx offers fs and terminal: the read, the edit and the command go through them (acpx
    writes its files to disk, so the edit is there), and the model gets the command's output."""
    ws = new_workspace(tmp_path, home=True)
    (ws / "notes.txt").write_text("old line\n")
    calls = [
        {"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}},
        {
            "id": "e1",
            "name": "replace_string_in_file",
            "input": {"path": "notes.txt", "old_string": "old line", "new_string": "new line"},
        },
        {"id": "t1", "name": "run_in_terminal", "input": {"command": "echo from-$((6*7))"}},
    ]
    fake_llm.set_script([{"tool_calls": calls[:1]}, {"tool_calls": calls[1:]}, {"text": "Done."}])
    env = {"AGENT_TUI_SANDBOX": "off"}
    messages = _acpx(ws, fake_llm, tmp_path / "home", "--approve-all", 0, env)
    asked = [m.get("method") for m in messages if "id" in m and "method" in m]
    for method in ("fs/read_text_file", "fs/write_text_file", "terminal/create"):
        assert method in asked, (method, asked)
    assert (ws / "notes.txt").read_text() == "new line\n"
    told = json.dumps(fake_llm.requests[-1]["messages"])
    assert "old line" in told and "from-42" in told
