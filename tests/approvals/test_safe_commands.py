"""Step ``safe_command``: which command lines run unasked (ask mode and plan mode), and which
hostile forms of the same commands still ask."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.approvals.safe_commands import is_known_safe
from agent_tui.approvals.shell import parse_command
from agent_tui.modes import Mode
from agent_tui.tools.base import Prepared
from tests.approvals.conftest import EngineFactory, manifest

SAFE = [
    "ls",
    "ls -la src",
    "pwd",
    "cat README.md",
    "cat src/a.py | wc -l",
    "head -n 5 src/a.py",
    "tail -n 20 src/a.py",
    "tail -f src/a.py",  # long-running, yet it only reads
    "wc -c src/a.py README.md",
    "grep -rn TODO src",
    "grep -n TODO src/a.py 2>/dev/null",
    "rg -n 'def main' src",
    "rg TODO",
    "git status",
    "git status --short && git diff",
    "git --no-pager log --oneline -5",
    "git show HEAD --stat",
    "git diff HEAD~1 -- src/a.py",
    "ls src | head -n 3 | wc -l",
    "cat src/a.py; ls src",
]

UNSAFE = [
    "cat src/a.py; rm src/b.py",  # a part not on the list
    "ls $(rm x)",  # what a substitution runs is a part
    "ls `rm x`",
    "cat src/a.py > out.txt",  # a redirection writes
    "cat src/a.py >> src/a.py",
    "grep -r x . | sh",  # piped into a shell
    "grep -r x . | bash -c 'rm -rf ~'",
    "git -c core.pager=evil log",  # an option before the verb
    "git -C /tmp status",
    "git --git-dir=/tmp/x status",
    "git diff --output=f",  # writes
    "git log --ext-diff",  # runs diff.external
    "git push",  # not a reading verb
    "git branch new",
    "rg --pre 'sh -c id' x",  # runs a program on every file
    "rg -z x",
    "rg -L x",  # follows links out of the workspace
    "grep -R x .",
    "grep -iR x .",
    "find . -name '*.py'",  # not on the list (find -exec, -delete)
    "find . -exec rm {} ;",
    "cat ~/.ssh/id_rsa",  # outside the workspace
    "cat /etc/passwd",
    "cat ../secret.txt",
    "head < /etc/passwd",
    "cat $HOME/.bashrc",  # a path only known when it runs
    "cat link.txt",  # a symbolic link in the workspace pointing out
    "cat linkdir/x",
    "cat .env",  # a protected path
    "cat .git/config",
    "grep key .agentrc",
    "PAGER=evil git log",  # an assignment in front
    "sudo cat src/a.py",  # a wrapper
    "xargs cat < src/a.py",
    "./ls",  # not the program on the list
    "cat 'unterminated",  # cannot be parsed
]


@pytest.fixture
def repo(workspace: Path, tmp_path: Path) -> Path:
    """A workspace that is a git repository, with a file, a protected file and links out."""
    (workspace / "src" / "a.py").write_text("def main(): pass  # TODO\n")
    (workspace / "README.md").write_text("hello\n")
    (workspace / ".env").write_text("KEY=1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x").write_text("secret\n")
    (tmp_path / "secret.txt").write_text("secret\n")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "linkdir").symlink_to(outside)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    return workspace


def _decide(engine: ApprovalEngine, command: str, cwd: Path) -> tuple[str, str]:
    verdict = engine.decide(
        manifest("run_in_terminal"), {"command": command}, Prepared("", "", paths=(cwd,))
    )
    return verdict.action, verdict.step


@pytest.mark.parametrize("mode", [Mode.ASK, Mode.PLAN])
@pytest.mark.parametrize("command", SAFE)
def test_safe_commands_run_unasked(
    command: str, mode: Mode, make_engine: EngineFactory, repo: Path
) -> None:
    engine = make_engine()
    engine.modes.set(mode)
    assert _decide(engine, command, repo) == ("allow", "safe_command")


@pytest.mark.parametrize("command", UNSAFE)
def test_hostile_forms_still_ask(command: str, make_engine: EngineFactory, repo: Path) -> None:
    engine = make_engine()
    action, step = _decide(engine, command, repo)
    assert step != "safe_command"
    assert action == "ask"
    engine.modes.set(Mode.PLAN)
    assert _decide(engine, command, repo) == ("deny", "mode")


def test_setting_turns_it_off(make_engine: EngineFactory, repo: Path) -> None:
    engine = make_engine("[tools.terminal]\nsafe_commands = false\n")
    assert _decide(engine, "ls", repo) == ("ask", "default")


def test_a_false_rule_beats_the_list(make_engine: EngineFactory, repo: Path) -> None:
    engine = make_engine('[tools.terminal.auto_approve]\n"cat" = false\n')
    assert _decide(engine, "cat README.md", repo) == ("ask", "deny_rule")


def test_not_eligible_terminal_still_asks(make_engine: EngineFactory, repo: Path) -> None:
    engine = make_engine("[tools.eligible_for_auto_approval]\nrun_in_terminal = false\n")
    assert _decide(engine, "ls", repo) == ("ask", "not_eligible")


def test_a_workspace_cannot_turn_it_on_before_trust(make_engine: EngineFactory, repo: Path) -> None:
    engine = make_engine(
        "[tools.terminal]\nsafe_commands = false\n",
        "[tools.terminal]\nsafe_commands = true\n",
        trusted=False,
    )
    assert _decide(engine, "ls", repo)[1] != "safe_command"


def test_git_in_a_repository_whose_config_names_a_program_asks(
    make_engine: EngineFactory, repo: Path
) -> None:
    subprocess.run(["git", "-C", str(repo), "config", "diff.external", "touch pwned"], check=True)
    assert _decide(make_engine(), "git diff", repo) == ("ask", "deny_rule")


def test_a_working_folder_outside_the_workspace_asks(
    make_engine: EngineFactory, repo: Path, tmp_path: Path
) -> None:
    assert _decide(make_engine(), "ls", tmp_path / "outside")[0] == "ask"


@pytest.mark.parametrize("command", ["ls -l", "git log -p", "rg -n x"])
def test_is_known_safe_reads_options(command: str) -> None:
    parsed = parse_command(command)
    assert parsed is not None and is_known_safe(parsed)
