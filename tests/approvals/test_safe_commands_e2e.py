"""Read-only commands run without a question through the real `agent-tui -p` (issue 27, item 6),
and their hostile forms do not: what ran (on disk) and what reached the model (the fake server's
requests). `--on-approval deny` stands for a user who would have been asked."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake

# The policy's reading of the line is what matters here; inside the sandbox every command runs
# unasked anyway (step `sandbox`).
pytestmark = pytest.mark.usefixtures("unsandboxed")
SECRET = "top-secret-5521"


@dataclass
class Env:
    ws: Path
    home: Path
    fake: FakeLLM

    def run(self, command: str, *flags: str) -> list[dict[str, object]]:
        """Run one terminal call; the `tool_call_decided` events of the run."""
        call = {"id": "call_1", "name": "run_in_terminal", "input": {"command": command}}
        self.fake.set_script([{"tool_calls": [call]}, {"text": "ok"}])
        proc = run_on_fake(
            self.ws, self.fake, "--model", "m", "-p", "go", "--on-approval", "deny",
            "--output-format", "stream-json", *flags,
            home=self.home, state=self.home.parent / "state",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return [json.loads(x) for x in proc.stdout.splitlines() if '"tool_call_decided"' in x]

    def reached_model(self) -> str:
        return json.dumps(self.fake.requests[-1])


@pytest.fixture
def env(tmp_path: Path, fake_llm: FakeLLM) -> Iterator[Env]:
    ws = tmp_path / "ws"
    ws.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "secret").write_text(SECRET + "\n")
    (ws / "a.py").write_text("print('a')\n")
    (ws / "victim").write_text("keep\n")
    (ws / "link").symlink_to(tmp_path / "secret")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    subprocess.run([*git, "-C", str(ws), "add", "a.py", "victim"], check=True)
    subprocess.run([*git, "-C", str(ws), "commit", "-qm", "first commit"], check=True)
    (ws / "a.py").write_text("print('b')\n")
    yield Env(ws, home, fake_llm)


@pytest.mark.parametrize(
    ("command", "shows", "mode"),
    [
        ("cat a.py", "print('b')", "ask"),
        ("git log --oneline -5", "first commit", "ask"),
        ("ls && wc -l a.py", "victim", "ask"),
        ("git diff", "print('b')", "plan"),
        ("grep -n print a.py | head -n 1", "1:print('b')", "plan"),
    ],
)
def test_read_only_commands_run_unasked(env: Env, command: str, shows: str, mode: str) -> None:
    decided = env.run(command, "--mode", mode)
    assert decided[0]["allowed"] is True and decided[0]["step"] == "safe_command", decided
    assert shows in env.reached_model()


@pytest.mark.parametrize(
    "command",
    [
        "cat a.py; rm victim",
        "ls $(rm victim)",
        "grep -r print . | sh -c 'rm victim'",
        "git -c core.pager='rm victim' log",
    ],
)
def test_a_hidden_part_is_asked_about(env: Env, command: str) -> None:
    decided = env.run(command)
    assert decided[0]["allowed"] is False, decided
    assert (env.ws / "victim").read_text() == "keep\n"


@pytest.mark.parametrize(("command", "written"), [("cat a.py > out", "out"),
                                                   ("git diff --output=diff.txt", "diff.txt")])  # fmt: skip
def test_a_write_is_asked_about(env: Env, command: str, written: str) -> None:
    assert env.run(command)[0]["allowed"] is False
    assert not (env.ws / written).exists()


@pytest.mark.parametrize("command", ["cat ../secret", "cat link", "head -n 1 < ../secret"])
def test_a_file_outside_never_reaches_the_model(env: Env, command: str) -> None:
    assert env.run(command)[0]["allowed"] is False
    assert SECRET not in json.dumps(env.fake.requests)


def test_the_setting_turns_it_off(env: Env) -> None:
    (env.home / ".agentrc").write_text("[tools.terminal]\nsafe_commands = false\n")
    decided = env.run("cat a.py")
    assert decided[0]["allowed"] is False
    assert "print('b')" not in env.reached_model()
