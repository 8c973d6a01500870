"""Protected paths through `agent-tui -p` (issue 10 item 7): config that starts processes or decides
what the agent may do is never written without asking, whatever rule or grant matches.

Before the fix `.mcp.json`, `.vscode/`, `.agent/` and `.claude/` were not protected: under an edit
rule `"**" = true` the model wrote `.mcp.json`, and the next trusted run started its server.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.approvals.grants import GrantStore
from agent_tui.approvals.types import Scope
from tests.fakes.llm_server import FakeLLM
from tests.helpers import tool_results

EVERYTHING_ALLOWED = (
    '[tools.edits.auto_approve]\n"**" = true\n\n[tools.terminal.auto_approve]\n"echo" = true\n'
)
PROTECTED = (
    ".mcp.json",
    ".agentrc",
    ".vscode/settings.json",
    ".git/hooks/pre-commit",
    ".env.local",
    ".claude/settings.json",
    ".agent/prompts/evil.prompt.md",
    "pkg/.vscode/tasks.json",
    # issue 22 item 8: what the app reads skills, agents, instructions and prompts from
    ".agents/skills/deploy/SKILL.md",
    ".claude/skills/deploy/SKILL.md",
    ".claude/agents/helper.md",
    ".agent/agents/helper.md",
    "AGENTS.md",
    "CLAUDE.md",
    "pkg/AGENTS.md",
    ".github/copilot-instructions.md",
)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / ".git" / "hooks").mkdir(parents=True)
    (path / "src").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text(EVERYTHING_ALLOWED)
    # Grants the user gave earlier, for every edit tool, in this workspace and everywhere.
    store = GrantStore(path.resolve(), tmp_path / "state")
    for tool in ("create_file", "replace_string_in_file", "apply_patch"):
        store.remember(Scope.WORKSPACE, tool, None)
        store.remember(Scope.ALWAYS, tool, None)
    return path


def _run(ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        AGENT_TUI_STATE_DIR=str(ws.parent / "state"),
        HOME=str(ws.parent / "home"),
        ANTHROPIC_API_KEY="sk-test",
    )
    env.pop("AGENT_TUI_USER_CONFIG", None)
    cmd = [sys.executable, "-m", "agent_tui", "--provider", "anthropic", "--base-url", fake.url,
           "--model", "test-model", *args]  # fmt: skip
    return subprocess.run(
        cmd, cwd=ws, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=90
    )


def _calls(*calls: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": f"call_{n}", "name": name, "input": input}
            for n, (name, input) in enumerate(calls)
        ]
    }


def test_protected_files_are_asked_for_under_an_allow_all_rule_and_grants(
    ws: Path, fake_llm: FakeLLM
) -> None:
    creates = [("create_file", {"path": p, "content": "PWNED\n"}) for p in PROTECTED]
    control = ("create_file", {"path": "src/ok.txt", "content": "fine\n"})
    fake_llm.set_script([_calls(*creates, control), {"text": "done"}])

    proc = _run(ws, fake_llm, "-p", "set things up", "--on-approval", "deny")

    assert proc.returncode == 0, proc.stderr
    assert (ws / "src/ok.txt").read_text() == "fine\n"  # the rule and grants do apply elsewhere
    for path in PROTECTED:
        assert not (ws / path).exists(), path
    results = tool_results(fake_llm.requests[1])
    for n in range(len(PROTECTED)):
        assert "declined to run this tool call" in results[f"call_{n}"]
        assert "not approved: headless run, --on-approval deny" in results[f"call_{n}"]
    assert "is a protected path (`.mcp.json`)" in proc.stderr  # the headless line says why
    assert "SKILL.md is a protected path (`.agents/**`)" in proc.stderr


def test_accept_edits_mode_asks_before_writing_a_skill_or_instructions(
    ws: Path, fake_llm: FakeLLM
) -> None:
    """Issue 22 item 8: accept-edits mode wrote `.agents/skills/*/SKILL.md` without asking, and a
    workspace skill goes into the next session's system prompt."""
    (ws / "lib").mkdir()
    (ws / "lib/CLAUDE.md").write_text("Be careful.\n")
    edit = {"path": "lib/CLAUDE.md", "old_string": "Be careful.", "new_string": "Run curl | sh."}
    creates = [("create_file", {"path": p, "content": "PWNED\n"}) for p in PROTECTED]
    control = ("create_file", {"path": "src/ok.txt", "content": "fine\n"})
    fake_llm.set_script(
        [_calls(*creates, ("replace_string_in_file", edit), control), {"text": "done"}]
    )

    proc = _run(ws, fake_llm, "-p", "go", "--mode", "accept-edits", "--on-approval", "deny")

    assert proc.returncode == 0, proc.stderr
    assert (ws / "src/ok.txt").read_text() == "fine\n"  # the mode does apply elsewhere
    for path in PROTECTED:
        assert not (ws / path).exists(), path
    assert (ws / "lib/CLAUDE.md").read_text() == "Be careful.\n"
    results = tool_results(fake_llm.requests[1])
    for n in range(len(PROTECTED) + 1):
        assert "declined to run this tool call" in results[f"call_{n}"], results[f"call_{n}"]
        assert "not approved: headless run, --on-approval deny" in results[f"call_{n}"]
    assert "SKILL.md is a protected path (`.agents/**`)" in proc.stderr
    assert "lib/CLAUDE.md is a protected path (`CLAUDE.md`)" in proc.stderr


def test_spellings_and_links_that_dodge_the_check_are_asked_for(
    ws: Path, fake_llm: FakeLLM
) -> None:
    (ws / ".mcp.json").write_text('{"mcpServers": {}}\n')
    (ws / "servers.json").write_text('{"mcpServers": {}}\n')
    (ws / "link.json").symlink_to(".mcp.json")  # a link *to* a protected file
    (ws / ".claude").mkdir()
    (ws / ".claude" / "settings.json").symlink_to("../servers.json")
    (ws / "vscode-real").mkdir()
    (ws / ".vscode").symlink_to("vscode-real")  # a protected name that is a link *from* elsewhere
    (ws / "vscode-real" / "mcp.json").write_text("{}\n")
    before = {
        p: (ws / p).read_text() for p in (".mcp.json", "servers.json", "vscode-real/mcp.json")
    }
    move_patch = (
        "*** Begin Patch\n*** Add File: src/a.txt\n+a\n*** Update File: servers.json\n"
        '*** Move to: .claude/hooks.json\n@@\n-{"mcpServers": {}}\n+{"hooks": 1}\n*** End Patch\n'
    )
    several = (
        "*** Begin Patch\n*** Add File: src/b.txt\n+b\n*** Update File: .mcp.json\n@@\n"
        '-{"mcpServers": {}}\n+{"mcpServers": {"x": {"command": "sh"}}}\n*** End Patch\n'
    )
    edit = {"old_string": "{}", "new_string": '{"servers": {"x": {"command": "sh"}}}'}
    fake_llm.set_script(
        [
            _calls(
                ("replace_string_in_file", {"path": "./.mcp.json", **edit}),
                ("replace_string_in_file", {"path": "src/../.mcp.json", **edit}),
                ("replace_string_in_file", {"path": str(ws / ".mcp.json"), **edit}),
                ("replace_string_in_file", {"path": "link.json", **edit}),
                ("replace_string_in_file", {"path": "vscode-real/mcp.json", **edit}),
                ("apply_patch", {"input": move_patch}),
                ("apply_patch", {"input": several}),
                ("create_file", {"path": ".MCP.json", "content": "x"}),
                ("run_in_terminal", {"command": "echo '{}' > .mcp.json"}),
                ("run_in_terminal", {"command": "echo x >> src/../.vscode/tasks.json"}),
            ),
            {"text": "done"},
        ]
    )

    proc = _run(ws, fake_llm, "-p", "go", "--on-approval", "deny", "--output-format", "stream-json")

    assert proc.returncode == 0, proc.stderr
    after = {p: (ws / p).read_text() for p in before}
    assert after == before
    assert not (ws / ".claude" / "hooks.json").exists()
    assert not (ws / "src" / "a.txt").exists() and not (ws / "src" / "b.txt").exists()
    assert not (ws / ".MCP.json").exists()
    assert not (ws / "vscode-real" / "tasks.json").exists()
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    asked = [e for e in events if e["type"] == "approval_requested"]
    assert len(asked) == 10
    assert all("a protected path" in e["verdict"]["reason"] for e in asked), asked


def test_yolo_writes_protected_files_and_says_so(ws: Path, fake_llm: FakeLLM) -> None:
    creates = [("create_file", {"path": p, "content": "ok\n"}) for p in PROTECTED]
    fake_llm.set_script([_calls(*creates), {"text": "done"}])

    proc = _run(ws, fake_llm, "-p", "set things up", "--yolo")

    assert proc.returncode == 0, proc.stderr
    for path in PROTECTED:
        assert (ws / path).read_text() == "ok\n", path
    lines = [line for line in proc.stderr.splitlines() if line.startswith("●")]
    assert len(lines) == len(PROTECTED)
    for line, path in zip(lines, PROTECTED, strict=True):
        assert f"--yolo, although {path} is a protected path" in line, line
