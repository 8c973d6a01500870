"""`agent-tui -p --on-approval deny` against a real git repo, with rules for the commands a person
allows most (issue 10, item 4): a command that writes or runs through its own options, hides a
command in an array subscript, or names a file outside the workspace must not run; the model hears
a denial, and nothing outside reached it. The same rules still run the plain forms."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

# The command-line reading that guards commands outside the sandbox (inside, the sandbox decides).
pytestmark = pytest.mark.usefixtures("unsandboxed")

RULES = """
[tools.terminal]
safe_commands = false  # rules decide here; the safe list: tests/approvals/test_safe_commands*.py

[tools.terminal.auto_approve]
"git log" = true
"git diff" = true
"find" = true
"printf" = true
"test" = true
"cat" = true
"echo" = true
"""
SECRET = "top-secret-4417"


@dataclass
class Env:
    ws: Path
    home: Path
    fake: FakeLLM

    def run(self, command: str) -> subprocess.CompletedProcess[str]:
        call = {"id": "call_1", "name": "run_in_terminal", "input": {"command": command}}
        self.fake.set_script([{"tool_calls": [call]}, {"text": "ok"}])
        proc = run_cli(
            self.ws,
            "--provider", "anthropic", "--base-url", self.fake.url, "--model", "test-model",
            "-p", "go", "--on-approval", "deny", "--output-format", "stream-json",
            env={"HOME": str(self.home), "AGENT_TUI_STATE_DIR": str(self.home.parent / "state"),
                 "ANTHROPIC_API_KEY": "sk-test"},
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return proc

    def tool_result(self) -> str:
        """What the model got back for its call (the last request holds the tool result)."""
        return json.dumps(self.fake.requests[-1])


@pytest.fixture
def env(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[Env]:
    ws = tmp_path / "ws"
    ws.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (home / ".agentrc").write_text(RULES)
    (tmp_path / "secret").write_text(SECRET + "\n")
    (ws / "a.py").write_text("print('a')\n")
    (ws / "victim").write_text("keep\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run([*git, "-C", str(ws), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(ws), "commit", "-qm", "first commit"], check=True)
    (ws / "a.py").write_text("print('b')\n")  # a change for git diff to show
    yield Env(ws, home, fake_llm)


def _denied(env: Env, proc: subprocess.CompletedProcess[str]) -> None:
    asked = [json.loads(x) for x in proc.stdout.splitlines() if '"approval_requested"' in x]
    assert asked, proc.stdout  # it was a question, not a rule's allow
    assert "declined to run this tool call" in env.tool_result()


Check = Callable[[Env], bool]
ATTACKS: list[tuple[str, str, Check]] = [
    ("git-log-output-home", "git log --output=$HOME/.bashrc",
     lambda e: not (e.home / ".bashrc").exists()),
    ("git-diff-output", "git diff --output=F", lambda e: not (e.ws / "F").exists()),
    ("git-diff-output-split", "git diff --output F", lambda e: not (e.ws / "F").exists()),
    ("git-log-patch-output", "git log -p --output=F", lambda e: not (e.ws / "F").exists()),
    ("find-delete", "find . -delete", lambda e: (e.ws / "victim").exists()),
    ("find-delete-named", "find . -name victim -delete", lambda e: (e.ws / "victim").exists()),
    ("find-fprint", "find . -fprint F", lambda e: not (e.ws / "F").exists()),
    ("find-fprint0", "find . -fprint0 F", lambda e: not (e.ws / "F").exists()),
    ("find-fls", "find . -fls F", lambda e: not (e.ws / "F").exists()),
    ("printf-v-subscript", "printf -v 'a[$(rm victim)]' x", lambda e: (e.ws / "victim").exists()),
    ("test-v-subscript", "test -v 'a[$(rm victim)]'", lambda e: (e.ws / "victim").exists()),
    ("test-v-subscript-dq", 'test -v "a[\\$(rm victim)]"', lambda e: (e.ws / "victim").exists()),
]  # fmt: skip


@pytest.mark.parametrize(
    ("command", "unharmed"), [a[1:] for a in ATTACKS], ids=[a[0] for a in ATTACKS]
)
def test_option_or_subscript_attack_under_a_rule_does_not_run(
    env: Env, command: str, unharmed: Check
) -> None:
    proc = env.run(command)
    _denied(env, proc)
    assert unharmed(env), command


READS = [
    ("cat-dotdot", "cat ../secret"),
    ("cat-redirect", "cat < ../secret"),
    ("cat-absolute", "cat {secret}"),
    ("cat-tilde-sibling", "cat ~/../secret"),
    ("echo-read-substitution", "echo $(<../secret)"),
    ("cat-symlink", "cat link"),
]


@pytest.mark.parametrize("command", [r[1] for r in READS], ids=[r[0] for r in READS])
def test_reading_outside_the_workspace_under_a_rule_asks(env: Env, command: str) -> None:
    (env.ws / "link").symlink_to(env.ws.parent / "secret")
    proc = env.run(command.format(secret=env.ws.parent / "secret"))
    _denied(env, proc)
    assert SECRET not in json.dumps(env.fake.requests)  # the content never reached the model


@pytest.mark.parametrize("redirect", [">", "<>", "<"])
def test_dev_tcp_under_a_rule_opens_no_connection(env: Env, redirect: str) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        proc = env.run(f"echo hi {redirect} /dev/tcp/127.0.0.1/{port}")
        _denied(env, proc)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):  # the run is over: a connection would be queued
            listener.accept()


@pytest.mark.parametrize(
    ("command", "shows"),
    [
        ("git log --oneline -5", "first commit"),
        ("git diff", "print('b')"),
        ("find . -name '*.py'", "./a.py"),
        ("cat a.py", "print('b')"),
        ("printf '%s' ok-printed", "ok-printed"),
    ],
)
def test_plain_forms_still_run_under_the_rules(env: Env, command: str, shows: str) -> None:
    proc = env.run(command)
    decided = [json.loads(x) for x in proc.stdout.splitlines() if '"tool_call_decided"' in x]
    assert decided[0]["allowed"] is True and decided[0]["step"] == "setting", decided
    assert shows in env.tool_result()
