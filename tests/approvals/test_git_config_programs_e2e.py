"""Git stays honest (issue 21 item 6) through ``agent-tui -p``: a git command a terminal rule allows
never runs a program the repository's own config names.

Before the fix, under ``"git status" = true`` a repository whose ``.git/config`` set
``core.fsmonitor = "touch /tmp/pwned"`` ran that program; likewise filter drivers, textconv,
external diff, hooks, ``gpg.program`` and aliases under ``"git" = true``. Each case below is a real
repository with one hostile key pointing at a script that writes a marker file; the model runs the
commands people allow (``git status``, ``git status --short``, ``git diff``, ``git log -p``,
``git show``) and a few siblings. Afterwards no marker exists, and each result the model got either
shows git's output or says the call needed approval.

The main case runs with the sandbox off and on (where bwrap works here; otherwise the sandbox is
unavailable and the commands ask as with it off): the check applies to both.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake, tool_results

COMMANDS = ("git status", "git status --short", "git diff", "git log -p", "git show")
GIT_ID = ("-c", "user.email=a@example.com", "-c", "user.name=A", "-c", "commit.gpgsign=false")


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *GIT_ID, *args], cwd=cwd, check=True, capture_output=True)


def _script(tmp_path: Path, name: str) -> Path:
    """An executable that records that it ran (and passes stdin through, as a filter would).

    The marker goes inside the workspace, where a command may write even under a sandbox: the
    test is about what git starts, not about where the started program may write.
    """
    markers = tmp_path / "ws" / "markers"
    markers.mkdir(parents=True, exist_ok=True)
    script = tmp_path / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!/bin/sh\ntouch '{markers}/{name}'\ncat 2>/dev/null\nexit 0\n")
    script.chmod(0o755)
    return script


def _repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    _git(path, "init", "-q")
    (path / "a.txt").write_text("one\n")
    _git(path, "add", "a.txt")
    _git(path, "commit", "-q", "-m", "first")
    (path / "a.txt").write_text("two\n")  # a change for git diff, same size: status re-reads it
    return path


# name -> (config keys set in the repository, info/attributes line)
CASES: dict[str, tuple[dict[str, str], str]] = {
    "fsmonitor": ({"core.fsmonitor": "{s}"}, ""),
    "filter": ({"filter.evil.clean": "{s}", "filter.evil.smudge": "{s}"}, "* filter=evil"),
    "filter-process": ({"filter.evil.process": "{s}"}, "* filter=evil"),
    "textconv": ({"diff.evil.textconv": "{s}"}, "* diff=evil"),
    "diff-command": ({"diff.evil.command": "{s}"}, "* diff=evil"),
    "diff-external": ({"diff.external": "{s}"}, ""),
    "pager": ({"core.pager": "{s}", "pager.status": "{s}", "pager.log": "{s}"}, ""),
    "hooks": ({"core.hooksPath": "{h}"}, ""),
    "gpg": ({"gpg.program": "{s}", "log.showSignature": "true"}, ""),
    "included": ({"include.path": "{i}"}, "* diff=evil"),
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text('[tools.terminal.auto_approve]\n"git" = true\n"cd" = true\n')
    return home


def _hostile(tmp_path: Path, case: str) -> Path:
    ws = _repo(tmp_path / "ws")
    script = _script(tmp_path, case)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("post-index-change", "pre-commit", "reference-transaction"):
        (hooks / hook).write_text(script.read_text())
        (hooks / hook).chmod(0o755)
    included = tmp_path / "included.cfg"
    included.write_text(f'[diff "evil"]\n\ttextconv = {script}\n')
    keys, attributes = CASES[case]
    for key, value in keys.items():
        value = value.format(s=script, h=hooks, i=included)
        subprocess.run(["git", "config", key, value], cwd=ws, check=True)
    if attributes:
        (ws / ".git" / "info" / "attributes").write_text(attributes + "\n")
    return ws


def _calls(commands: tuple[str, ...]) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": f"call_{n}", "name": "run_in_terminal", "input": {"command": c}}
            for n, c in enumerate(commands)
        ]
    }


def _run(
    ws: Path, home: Path, fake: FakeLLM, sandbox: str = "off"
) -> subprocess.CompletedProcess[str]:
    return run_on_fake(
        ws, fake, "-p", "look at the changes", "--on-approval", "deny", "--sandbox", sandbox,
        "--output-format", "stream-json", home=home, state=ws.parent / "state",
        env={"AGENT_TUI_USER_CONFIG": str(home / ".agentrc")},
    )  # fmt: skip


def _asked(proc: subprocess.CompletedProcess[str]) -> str:
    """The reasons of every approval question, one per line (stream-json events)."""
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    return "\n".join(e["verdict"]["reason"] for e in events if e["type"] == "approval_requested")


def _check_results(results: dict[str, str], commands: tuple[str, ...]) -> None:
    for n, command in enumerate(commands):
        text = results[f"call_{n}"]
        asked = "not approved: headless run, --on-approval deny" in text
        assert asked or "Exit code: 0" in text or "exit code 0" in text.lower(), (command, text)


@pytest.mark.parametrize("sandbox", ["off", "workspace-write"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_allowed_git_commands_run_no_program_the_repository_names(
    tmp_path: Path, home: Path, fake_llm: FakeLLM, case: str, sandbox: str
) -> None:
    """Inside the sandbox too: the program could not leave it, but it is still the repository's
    code, run without the user asking for it (the markers are inside the workspace)."""
    ws = _hostile(tmp_path, case)
    fake_llm.set_script([_calls(COMMANDS), {"text": "done"}])

    proc = _run(ws, home, fake_llm, sandbox)

    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (ws / "markers").iterdir()) == []
    results = tool_results(fake_llm.requests[1])
    _check_results(results, COMMANDS)
    if case not in ("fsmonitor", "pager"):  # the terminal's environment neutralises those
        assert "would run a program the repository's git config names" in _asked(proc)


def test_fsmonitor_is_switched_off_so_git_status_still_runs_under_its_rule(
    tmp_path: Path, home: Path, fake_llm: FakeLLM
) -> None:
    """The issue's own example: `git status` runs (its output reaches the model), the hook not."""
    ws = _hostile(tmp_path, "fsmonitor")
    fake_llm.set_script([_calls(("git status --short",)), {"text": "done"}])

    proc = _run(ws, home, fake_llm)

    assert proc.returncode == 0, proc.stderr
    assert not (ws / "markers" / "fsmonitor").exists()
    assert "M a.txt" in tool_results(fake_llm.requests[1])["call_0"]


def test_siblings_alias_nested_repository_submodule_and_config_writes_ask(
    tmp_path: Path, home: Path, fake_llm: FakeLLM
) -> None:
    ws = _repo(tmp_path / "ws")
    script = _script(tmp_path, "sibling")
    subprocess.run(["git", "config", "alias.st", f"!{script}"], cwd=ws, check=True)
    nested = _repo(ws / "nested")  # its own repository, reached by `cd`
    subprocess.run(["git", "config", "diff.evil.textconv", str(script)], cwd=nested, check=True)
    (nested / ".git" / "info" / "attributes").write_text("* diff=evil\n")
    origin = _repo(tmp_path / "origin")
    _git(origin, "commit", "-qam", "second")
    _git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(origin), "mod")
    module = ws / ".git" / "modules" / "mod"
    subprocess.run(["git", "config", "filter.evil.clean", str(script)], cwd=ws / "mod", check=True)
    (module / "info").mkdir(exist_ok=True)
    (module / "info" / "attributes").write_text("* filter=evil\n")
    (ws / "mod" / "a.txt").touch()  # stat-dirty: status inside the submodule re-reads it
    commands = (
        "git st",
        "cd nested && git diff",
        "git status",
        "git config core.fsmonitor ./evil.sh",
        "git config --get core.fsmonitor",
    )
    fake_llm.set_script([_calls(commands), {"text": "done"}])

    proc = _run(ws, home, fake_llm)

    assert proc.returncode == 0, proc.stderr
    assert not (ws / "markers" / "sibling").exists()
    results = tool_results(fake_llm.requests[1])
    for n in range(4):
        assert "not approved: headless run" in results[f"call_{n}"], commands[n]
    asked = _asked(proc)
    assert "alias.st in .git/config" in asked
    assert "diff.evil.textconv in .git/config" in asked, asked
    assert "filter.evil.clean in" in asked and "(submodule mod)" in asked
    assert "writes git config" in asked
    assert "not approved" not in results["call_4"]  # reading config runs nothing: the rule applies
