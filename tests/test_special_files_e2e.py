"""FIFOs, devices and links to them hung the app (issue 22 item 4): everything agent-tui reads on
its own now reads regular files only, with a cap, and says what it refused.

Real ``agent-tui -p`` processes against the fake server, in workspaces holding a real FIFO
(``os.mkfifo``) and a symbolic link to ``/dev/zero``. A hang shows as ``subprocess.TimeoutExpired``
from the process's own timeout, well inside pytest's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_fake

TIMEOUT = 60  # the process's own limit: a hang fails the test instead of stalling the run


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = new_workspace(tmp_path, {"main.py": "print('MAIN_TEXT_31')\n"}, home=True)
    os.mkfifo(workspace / "fifo")
    (workspace / "zero").symlink_to("/dev/zero")
    return workspace


def run(ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    tmp = ws.parent
    return run_on_fake(ws, fake, *args, home=tmp / "home", state=tmp / "state", timeout=TIMEOUT)


def sent(fake: FakeLLM) -> str:
    return json.dumps(fake.requests)


def test_file_reference_to_a_fifo_is_refused_not_hung(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "see #file:fifo")
    assert proc.returncode == 2, proc.stderr
    assert "named pipe (FIFO), not a regular file" in proc.stderr
    assert "fifo" in proc.stderr and "Traceback" not in proc.stderr
    assert fake_llm.requests == []  # nothing went to the model


def test_at_mention_of_a_fifo_is_refused_not_hung(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "see @fifo and @main.py")
    assert proc.returncode == 2, proc.stderr
    assert "named pipe (FIFO), not a regular file" in proc.stderr
    assert fake_llm.requests == []


@pytest.mark.parametrize("name", ["fifo", "zero"])
def test_image_flag_on_a_fifo_or_device_is_refused_not_hung(
    ws: Path, fake_llm: FakeLLM, name: str
) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "what is this?", "--image", name)
    assert proc.returncode == 2, proc.stderr
    kind = "named pipe (FIFO)" if name == "fifo" else "character device"
    assert f"--image: cannot read {name}: it is a {kind}, not a regular file" in proc.stderr
    assert fake_llm.requests == []


def test_file_reference_to_a_device_link_is_refused(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "see #file:zero")
    assert proc.returncode == 2, proc.stderr
    assert "zero" in proc.stderr and "Traceback" not in proc.stderr
    assert fake_llm.requests == []


def test_instructions_files_that_are_fifos_are_skipped_with_a_notice(
    ws: Path, fake_llm: FakeLLM
) -> None:
    os.mkfifo(ws / "AGENTS.md")
    (ws / "CLAUDE.md").symlink_to("/dev/zero")  # outside the workspace too: refused either way
    (ws / "sub").mkdir()
    os.mkfifo(ws / "sub" / "AGENTS.md")
    (ws / "sub" / "x.py").write_text("X_TEXT_77\n")
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "sub/x.py"}}]},
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, "-p", "read sub/x.py")
    assert proc.returncode == 0, proc.stderr
    assert "AGENTS.md not used as instructions" in proc.stderr
    assert "named pipe (FIFO)" in proc.stderr
    second = json.dumps(fake_llm.requests[-1])
    assert "X_TEXT_77" in second
    assert "sub/AGENTS.md not used: it is a named pipe (FIFO)" in second


@pytest.mark.parametrize("skill_file", ["fifo", "zero"])
def test_skill_and_prompt_files_that_are_fifos_do_not_hang_the_start(
    ws: Path, fake_llm: FakeLLM, skill_file: str
) -> None:
    skill = ws / ".agents" / "skills" / "demo"
    skill.mkdir(parents=True)
    prompts = ws / ".github" / "prompts"
    prompts.mkdir(parents=True)
    agents = ws / ".github" / "agents"
    agents.mkdir(parents=True)
    for target in (skill / "SKILL.md", prompts / "p.prompt.md", agents / "a.agent.md"):
        if skill_file == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to("/dev/zero")
    fake_llm.set_script([{"text": "answer-ok"}])
    proc = run(ws, fake_llm, "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    assert "answer-ok" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_config_and_mcp_files_that_are_fifos_do_not_hang_the_start(
    ws: Path, fake_llm: FakeLLM
) -> None:
    for name in (".agentrc", ".mcp.json"):
        os.mkfifo(ws / name)
    (ws / ".vscode").mkdir()
    os.mkfifo(ws / ".vscode" / "mcp.json")
    (ws / ".claude").mkdir()
    os.mkfifo(ws / ".claude" / "settings.json")
    fake_llm.set_script([{"text": "answer-ok"}])
    proc = run(ws, fake_llm, "-p", "hello")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "answer-ok" in proc.stdout


@pytest.mark.parametrize("rg", ["", "default"])
@pytest.mark.parametrize("tool", ["grep_search", "file_search", "list_dir", "read_file"])
def test_search_tools_do_not_hang_on_a_fifo_in_the_workspace(
    ws: Path, fake_llm: FakeLLM, tool: str, rg: str
) -> None:
    env = {"AGENT_TUI_RG": ""} if rg == "" else {}
    # Ignore files that are FIFOs: the Python walk reads every .gitignore it meets, and ripgrep
    # opens each .gitignore, .ignore and .rgignore itself (then it is noticed and replaced).
    (ws / "sub").mkdir()
    os.mkfifo(ws / "sub" / ".gitignore")
    os.mkfifo(ws / ".ignore")
    args = {
        "grep_search": {"query": "MAIN_TEXT"},
        "file_search": {"pattern": "**/*.py"},
        "list_dir": {"path": "."},
        "read_file": {"path": "fifo"},
    }[tool]
    fake_llm.set_script(
        [{"tool_calls": [{"id": "t", "name": tool, "input": args}]}, {"text": "done"}]
    )
    tmp = ws.parent
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "look",
        home=tmp / "home",
        state=tmp / "state",
        env=env,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr
    result = json.dumps(fake_llm.requests[-1])
    if tool == "grep_search":
        assert "MAIN_TEXT_31" in result
    elif tool == "read_file":
        assert "not a regular file" in result
    else:
        assert "main.py" in result


def test_resume_skips_a_session_file_that_is_a_fifo(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "first"}, {"text": "second"}])
    assert run(ws, fake_llm, "-p", "hello").returncode == 0
    sessions = next((ws.parent / "state" / "sessions").iterdir())
    os.mkfifo(sessions / "20990101-000000-fifo.jsonl")  # the newest name: --continue tries it
    proc = run(ws, fake_llm, "-p", "again", "--continue")
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "second" in proc.stdout
