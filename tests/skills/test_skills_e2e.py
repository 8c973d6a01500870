"""Agent Skills (issue 16 item 2) through `agent-tui -p` against the fake LLM server.

Checks what reached the model: the system prompt's list, the body `read_skill` returns, and that a
skill's file leading outside its folder (a symbolic link, `..`, an absolute path) never does.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_fake

SECRET = "SECRET-KEY-MATERIAL-7171"
SKILL = """---
name: release-notes
description: Write release notes from the git log. Use when asked for a changelog.
---
# Release notes
Group the commits by type; see template.md.
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return new_workspace(tmp_path)


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text(f"{SECRET}\n")
    return path


def _skill(base: Path, name: str = "release-notes", text: str = SKILL) -> Path:
    folder = base / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text)
    (folder / "template.md").write_text("## Features\n## Fixes\n")
    return folder


def _agent(ws: Path, home: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    return run_on_fake(ws, fake, *args, home=home, state=home.parent / "state")


def _call(**input: str) -> dict[str, object]:
    return {"id": "c1", "name": "read_skill", "input": input}


def _tool_result(fake: FakeLLM) -> str:
    return json.dumps(fake.requests[-1]["messages"][-1])


def test_system_prompt_lists_a_workspace_skill_and_read_skill_returns_its_body(
    workspace: Path, home: Path, fake_llm: FakeLLM
) -> None:
    _skill(workspace / ".agents" / "skills")
    fake_llm.set_script([{"tool_calls": [_call(name="release-notes")]}, {"text": "done"}])

    proc = _agent(workspace, home, fake_llm, "-p", "write the changelog")

    assert proc.returncode == 0, proc.stderr
    system = json.dumps(fake_llm.requests[0]["system"])
    assert "- release-notes: Write release notes from the git log." in system
    assert "read_skill" in [t["name"] for t in fake_llm.requests[0]["tools"]]
    result = _tool_result(fake_llm)
    assert "Group the commits by type" in result and "template.md" in result
    assert "description:" not in result  # the front matter is already in the system prompt


def test_a_skill_file_is_read_and_user_level_skills_are_listed_with_their_source(
    workspace: Path, home: Path, fake_llm: FakeLLM
) -> None:
    _skill(home / ".claude" / "skills")
    fake_llm.set_script(
        [{"tool_calls": [_call(name="release-notes", file="template.md")]}, {"text": "ok"}]
    )

    proc = _agent(workspace, home, fake_llm, "-p", "changelog please")

    assert proc.returncode == 0, proc.stderr
    assert "release-notes" in json.dumps(fake_llm.requests[0]["system"])
    assert "## Features" in _tool_result(fake_llm)
    listed = _agent(workspace, home, fake_llm, "-p", "/skills")
    assert "`release-notes`" in listed.stdout and "`~/.claude/skills/`" in listed.stdout


def test_no_skills_means_no_skills_section(workspace: Path, home: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "hi"}])

    proc = _agent(workspace, home, fake_llm, "-p", "hello")

    assert proc.returncode == 0, proc.stderr
    assert "# Skills" not in json.dumps(fake_llm.requests[0]["system"])


@pytest.mark.parametrize("level", ["workspace", "user"])
def test_skill_files_leading_outside_the_skill_folder_are_refused(
    workspace: Path, home: Path, secret: Path, fake_llm: FakeLLM, level: str
) -> None:
    base = workspace / ".agents" / "skills" if level == "workspace" else home / ".agents" / "skills"
    folder = _skill(base)
    (folder / "notes.md").symlink_to(secret)
    (folder / "refs").symlink_to(secret.parent, target_is_directory=True)
    attempts = ["notes.md", "refs/id_rsa", "../../../../outside/id_rsa", str(secret), "~/x"]
    calls = [
        {"id": f"c{i}", "name": "read_skill", "input": {"name": "release-notes", "file": f}}
        for i, f in enumerate(attempts)
    ]
    fake_llm.set_script([{"tool_calls": calls}, {"text": "ok"}])

    proc = _agent(workspace, home, fake_llm, "-p", "go", "--on-approval", "deny")

    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests)
    assert SECRET not in sent
    assert sent.count("outside the skill's folder") >= 3


def test_a_workspace_skill_folder_linked_outside_is_not_listed(
    workspace: Path, home: Path, tmp_path: Path, fake_llm: FakeLLM
) -> None:
    elsewhere = _skill(tmp_path / "elsewhere")
    base = workspace / ".claude" / "skills"
    base.mkdir(parents=True)
    (base / "release-notes").symlink_to(elsewhere, target_is_directory=True)
    fake_llm.set_script([{"tool_calls": [_call(name="release-notes")]}, {"text": "ok"}])

    proc = _agent(workspace, home, fake_llm, "-p", "go", "--on-approval", "deny")

    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests)
    assert "Group the commits" not in sent
    assert "# Skills" not in json.dumps(fake_llm.requests[0]["system"])
    # No skill left: read_skill is not offered (issue 28: nothing behind it), and not run.
    assert "read_skill" not in [tool["name"] for tool in fake_llm.requests[0]["tools"]]
    assert "There is no tool named 'read_skill' available in this request" in sent
    assert "outside the workspace" in proc.stderr + proc.stdout


def test_skills_breaking_the_name_rules_are_skipped_with_a_notice(
    workspace: Path, home: Path, fake_llm: FakeLLM
) -> None:
    base = workspace / ".agents" / "skills"
    _skill(base, "Bad_Name", SKILL.replace("release-notes", "Bad_Name"))
    _skill(base, "other-folder")  # name differs from the folder
    fake_llm.set_script([{"text": "hi"}])

    proc = _agent(workspace, home, fake_llm, "-p", "hello")

    assert proc.returncode == 0, proc.stderr
    assert "# Skills" not in json.dumps(fake_llm.requests[0]["system"])
    listed = _agent(workspace, home, fake_llm, "-p", "/skills")
    assert "not 1-64 lowercase letters" in listed.stdout
    assert "differs from its folder name" in listed.stdout
