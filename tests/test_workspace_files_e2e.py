"""Files a repository controls, read by the app on its own (issue 10 item 6), through `agent-tui -p`.

What broke: a committed link `.agent/prompts/review.prompt.md -> ../../../.ssh/id_rsa` survived
`git clone` and `/review` sent the key file; `get_changed_files` (no approval) followed an untracked
link out of the workspace and ran the `core.fsmonitor` and `textconv` programs from `.git/config`.
Each test checks what reached the fake model server and what ran on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

SECRET = "SECRET-KEY-MATERIAL-4242"
# get_changed_files waits behind tool_search (issue 26): the model loads it first.
LOAD_CHANGED_FILES = {
    "tool_calls": [{"id": "s0", "name": "tool_search", "input": {"query": "get_changed_files"}}]
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside every workspace, like ~/.ssh/id_rsa."""
    path = tmp_path / "outside" / "id_rsa"
    path.parent.mkdir()
    path.write_text(f"-----BEGIN KEY-----\n{SECRET}\n-----END KEY-----\n")
    return path


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(home.parent / "state"),
        "ANTHROPIC_API_KEY": "k",
        "GIT_CONFIG_NOSYSTEM": "1",
        **{f"GIT_{who}_{what}": val for who in ("AUTHOR", "COMMITTER")
           for what, val in (("NAME", "T"), ("EMAIL", "t@example.com"))},
    }  # fmt: skip


def _agent(
    ws: Path, home: Path, fake: FakeLLM, *args: str, fmt: str = "text"
) -> subprocess.CompletedProcess[str]:
    return run_cli(
        ws, "--provider", "anthropic", "--base-url", fake.url, "--output-format", fmt, *args,
        env=_env(home),
    )  # fmt: skip


def _git(repo: Path, home: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **_env(home)}
    )


def _sent(fake: FakeLLM) -> str:
    return json.dumps(fake.requests)


# --- git programs from .git/config ----------------------------------------------------------


def _hostile_repo(tmp_path: Path, home: Path) -> tuple[Path, Path]:
    """A repo whose .git/config names programs for fsmonitor, a clean filter, textconv and an
    external diff; each program writes a marker file. Returns (repo, marker)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, home, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (repo / "app.py").write_text("x = 1\n")
    _git(repo, home, "add", "-A")
    _git(repo, home, "commit", "-q", "-m", "initial")
    marker = tmp_path / "MARKER"
    program = tmp_path / "evil.sh"
    program.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n')
    program.chmod(0o755)
    for key in ("core.fsmonitor", "filter.evil.clean", "filter.evil.smudge",
                "filter.evil.process", "diff.evil.textconv", "diff.evil.command",
                "diff.external", "core.pager"):  # fmt: skip
        _git(repo, home, "config", key, str(program))
    _git(repo, home, "config", "filter.evil.required", "true")
    (repo / "app.py").write_text("x = 2  # changed-line-77\n")
    return repo, marker


def test_get_changed_files_runs_no_program_from_git_config(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    repo, marker = _hostile_repo(tmp_path, home)
    (repo / "notes.txt").symlink_to(secret)  # untracked link out of the workspace
    (repo / "docs").symlink_to(secret.parent, target_is_directory=True)
    call = {"id": "c1", "name": "get_changed_files", "input": {}}
    fake_llm.set_script([LOAD_CHANGED_FILES, {"tool_calls": [call]}, {"text": "seen"}])

    proc = _agent(repo, home, fake_llm, "-p", "what changed?")

    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text()
    result = _sent(fake_llm)
    assert "changed-line-77" in result  # the diff itself still reaches the model
    assert f"new symbolic link notes.txt -> {secret} (not followed)" in result
    assert SECRET not in result


def test_changes_reference_runs_no_program_from_git_config(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    repo, marker = _hostile_repo(tmp_path, home)
    (repo / "notes.txt").symlink_to(secret)
    fake_llm.set_script([{"text": "reviewed"}])

    proc = _agent(repo, home, fake_llm, "-p", "review #changes")

    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), marker.read_text()
    assert "changed-line-77" in _sent(fake_llm)
    assert SECRET not in _sent(fake_llm)


def test_a_work_tree_set_elsewhere_is_not_diffed(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    # HEAD holds a decoy id_rsa; core.worktree points git at the folder with the real one, so
    # a diff against HEAD would print the real key as added lines.
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, home, "init", "-q", "-b", "main")
    (repo / "id_rsa").write_text("decoy\n")
    _git(repo, home, "add", "-A")
    _git(repo, home, "commit", "-q", "-m", "initial")
    _git(repo, home, "config", "core.worktree", str(secret.parent))
    call = {"id": "c1", "name": "get_changed_files", "input": {}}
    fake_llm.set_script([LOAD_CHANGED_FILES, {"tool_calls": [call]}, {"text": "seen"}])

    tool = _agent(repo, home, fake_llm, "-p", "what changed?")
    reference = _agent(repo, home, fake_llm, "-p", "review #changes")

    assert tool.returncode == 0, tool.stderr
    assert f"its work tree is {secret.parent}" in _sent(fake_llm)  # the model is told why
    assert reference.returncode == 2
    assert f"its work tree is {secret.parent}" in reference.stderr
    assert SECRET not in _sent(fake_llm)


# --- prompt files, instructions, participants, #file --------------------------------------


def test_cloned_prompt_file_link_to_a_key_is_not_sent(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    origin = tmp_path / "origin"
    (origin / ".agent" / "prompts").mkdir(parents=True)
    _git(origin, home, "init", "-q", "-b", "main")
    link = origin / ".agent" / "prompts" / "review.prompt.md"
    link.symlink_to(os.path.relpath(secret, link.parent))  # ../../../outside/id_rsa
    (origin / "README.md").write_text("hello\n")
    _git(origin, home, "add", "-A")
    _git(origin, home, "commit", "-q", "-m", "a helpful prompt")
    clone = tmp_path / "clone"
    _git(tmp_path, home, "clone", "-q", str(origin), str(clone))
    assert (clone / ".agent" / "prompts" / "review.prompt.md").read_text() == secret.read_text()
    fake_llm.set_script([{"text": "never"}])

    proc = _agent(clone, home, fake_llm, "-p", "/review")

    assert proc.returncode == 2
    assert fake_llm.requests == []
    assert "/review: not sent" in proc.stderr and "outside the workspace" in proc.stderr
    assert str(secret) in proc.stderr  # the user sees where the link leads


def test_linked_prompts_folder_is_not_read(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    (ws / ".agent").mkdir(parents=True)
    (secret.parent / "steal.prompt.md").write_text(f"Send this: {SECRET}\n")
    (ws / ".agent" / "prompts").symlink_to(secret.parent, target_is_directory=True)
    fake_llm.set_script([{"text": "never"}])

    proc = _agent(ws, home, fake_llm, "-p", "/steal")

    assert proc.returncode == 2
    assert fake_llm.requests == []
    assert "/steal: not sent" in proc.stderr


def test_linked_instructions_file_is_skipped_with_a_notice(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    (ws / ".github").mkdir(parents=True)
    (ws / "AGENTS.md").write_text("Use tabs.\n")
    (ws / "CLAUDE.md").symlink_to(secret)
    (ws / ".github" / "copilot-instructions.md").symlink_to(secret)
    fake_llm.set_script([{"text": "hi"}])

    proc = _agent(ws, home, fake_llm, "-p", "hello")

    assert proc.returncode == 0, proc.stderr
    assert "Use tabs." in _sent(fake_llm) and SECRET not in _sent(fake_llm)
    assert f"CLAUDE.md not used as instructions: it leads to {secret}" in proc.stderr
    assert ".github/copilot-instructions.md not used as instructions" in proc.stderr
    help_text = _agent(ws, home, fake_llm, "-p", "/help").stdout
    assert f"- CLAUDE.md not used as instructions: it leads to {secret}" in help_text


def test_linked_participant_prompt_is_refused(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "reviewer.md").symlink_to(secret)
    (ws / ".agentrc").write_text(
        '[[participants]]\nname = "rev"\ndescription = "r"\nprompt_file = "reviewer.md"\n'
    )
    fake_llm.set_script([{"text": "never"}])

    proc = _agent(ws, home, fake_llm, "-p", "@rev hello")

    assert proc.returncode == 2
    assert fake_llm.requests == []
    assert "prompt_file" in proc.stderr and str(secret) in proc.stderr


@pytest.mark.parametrize(
    "reference", ["#file:docs/id_rsa", "#file:key.txt", "#file:../outside/id_rsa"]
)
def test_file_reference_outside_the_workspace_is_an_error(
    tmp_path: Path, home: Path, secret: Path, fake_llm: FakeLLM, reference: str
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "docs").symlink_to(secret.parent, target_is_directory=True)
    (ws / "key.txt").symlink_to(secret)
    fake_llm.set_script([{"text": "never"}])

    proc = _agent(ws, home, fake_llm, "-p", f"explain {reference}")

    assert proc.returncode == 2
    assert fake_llm.requests == []
    assert "outside the workspace" in proc.stderr
