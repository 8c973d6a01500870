"""`--add-dir PATH` through the real `agent-tui -p` (issue 27, item 2): the folder is used as the
workspace is (read unasked, edits under the same approvals and protected paths, written by
commands inside the sandbox), a folder outside every root is still refused, and protected
locations cannot be added. Checked on disk and in what reached the model."""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake

TEXT = "library-text-7731"


@dataclass
class Env:
    ws: Path
    lib: Path
    home: Path
    fake: FakeLLM

    def run(
        self, call: dict[str, Any], *flags: str
    ) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
        """One tool call by the model; the process and its `tool_call_decided` events."""
        self.fake.set_script([{"tool_calls": [{"id": "c1", **call}]}, {"text": "ok"}])
        proc = run_on_fake(
            self.ws, self.fake, "--model", "m", "-p", "go", "--on-approval", "deny",
            "--output-format", "stream-json", *flags,
            home=self.home, state=self.home.parent / "state",
        )  # fmt: skip
        decided = [json.loads(x) for x in proc.stdout.splitlines() if '"tool_call_decided"' in x]
        return proc, decided

    def reached_model(self) -> str:
        return json.dumps(self.fake.requests)


@pytest.fixture
def env(tmp_path: Path, fake_llm: FakeLLM) -> Env:
    ws, lib, home = tmp_path / "ws", tmp_path / "lib", tmp_path / "home"
    for folder in (ws, lib, home):
        folder.mkdir()
    (lib / "notes.txt").write_text(TEXT + "\n")
    return Env(ws, lib, home, fake_llm)


def _read(path: Path) -> dict[str, Any]:
    return {"name": "read_file", "input": {"path": str(path)}}


def test_a_file_in_an_extra_root_is_read_unasked(env: Env) -> None:
    proc, decided = env.run(_read(env.lib / "notes.txt"), "--add-dir", str(env.lib))
    assert proc.returncode == 0, proc.stderr
    assert (decided[0]["allowed"], decided[0]["step"]) == (True, "read_only")
    assert TEXT in env.reached_model()


def test_without_the_flag_it_is_outside(env: Env) -> None:
    proc, decided = env.run(_read(env.lib / "notes.txt"))
    assert proc.returncode == 0, proc.stderr
    assert not any(d["allowed"] for d in decided)  # refused before a decision, or asked
    assert "outside the workspace" in env.reached_model()
    assert TEXT not in env.reached_model()


def test_a_folder_beside_the_extra_root_is_still_outside(env: Env, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "s.txt").write_text("other-secret-1\n")
    (env.lib / "out").symlink_to(other)  # a link in the extra root leading out of it
    _, decided = env.run(_read(env.lib / "out" / "s.txt"), "--add-dir", str(env.lib))
    assert not any(d["allowed"] for d in decided)
    assert f"and its extra roots ({env.lib})" in env.reached_model()
    assert "other-secret-1" not in env.reached_model()


def test_edits_in_an_extra_root_follow_the_same_approvals(env: Env) -> None:
    create = {"name": "create_file", "input": {"path": str(env.lib / "new.txt"), "content": "x"}}
    _, decided = env.run(create, "--add-dir", str(env.lib))
    assert decided[0]["allowed"] is False  # an edit asks, as in the workspace
    assert not (env.lib / "new.txt").exists()
    _, decided = env.run(create, "--add-dir", str(env.lib), "--mode", "accept-edits")
    assert decided[0]["allowed"] is True
    assert (env.lib / "new.txt").read_text() == "x"
    protected = {"name": "create_file", "input": {"path": str(env.lib / ".env"), "content": "x"}}
    _, decided = env.run(protected, "--add-dir", str(env.lib), "--mode", "accept-edits")
    assert decided[0]["allowed"] is False  # a protected name asks there too
    assert not (env.lib / ".env").exists()


@pytest.mark.usefixtures("unsandboxed")
def test_a_safe_command_on_an_extra_root_runs_unasked(env: Env) -> None:
    call = {"name": "run_in_terminal", "input": {"command": f"cat {env.lib / 'notes.txt'}"}}
    _, decided = env.run(call, "--add-dir", str(env.lib))
    assert (decided[0]["allowed"], decided[0]["step"]) == (True, "safe_command")
    assert TEXT in env.reached_model()


def test_the_sandbox_lets_commands_write_an_extra_root(env: Env) -> None:
    made = env.lib / "made.txt"
    call = {"name": "run_in_terminal", "input": {"command": f"touch {made}"}}
    proc, decided = env.run(call, "--add-dir", str(env.lib), "--sandbox", "workspace-write")
    if decided and decided[0]["step"] != "sandbox":
        pytest.skip(f"no working sandbox here: {decided[0]}")
    assert made.exists(), proc.stdout
    made.unlink()
    env.run(call, "--sandbox", "workspace-write")  # without the flag: blocked, then denied
    assert not made.exists()


@pytest.mark.parametrize("which", ["home", "link-to-home", "state", "ssh", "root"])
def test_protected_locations_cannot_be_added(env: Env, which: str) -> None:
    (env.home / ".ssh").mkdir()
    (env.lib / "h").symlink_to(env.home)
    state = env.home.parent / "state"
    state.mkdir()
    given = {"home": env.home, "link-to-home": env.lib / "h", "state": state,
             "ssh": env.home / ".ssh", "root": Path("/")}[which]  # fmt: skip
    proc, decided = env.run(_read(env.lib / "notes.txt"), "--add-dir", str(given))
    assert proc.returncode != 0
    assert "cannot be added" in proc.stderr
    assert env.fake.requests == []  # nothing started


@pytest.mark.parametrize(
    "call",
    [
        {"name": "grep_search", "input": {"query": "library-text", "include_pattern": "LIB/*.txt"}},
        {"name": "file_search", "input": {"pattern": "LIB/**/*.txt"}},
        {"name": "list_dir", "input": {"path": "LIB"}},
    ],
    ids=["grep_search", "file_search", "list_dir"],
)
def test_the_searches_take_a_path_in_an_extra_root(env: Env, call: dict[str, Any]) -> None:
    """The searches run unasked in the extra root and name its files by their full path (which
    read_file opens); without --add-dir the same call is refused as outside the workspace."""
    call = json.loads(json.dumps(call).replace("LIB", str(env.lib)))
    proc, decided = env.run(call, "--add-dir", str(env.lib))
    assert proc.returncode == 0, proc.stderr
    assert (decided[0]["allowed"], decided[0]["step"]) == (True, "read_only")
    answer = env.fake.requests[-1]["messages"][-1]["content"][0]["content"]
    shown = "notes.txt" if call["name"] == "list_dir" else str(env.lib.resolve() / "notes.txt")
    assert shown in answer and "is_error" not in env.fake.requests[-1]["messages"][-1]["content"][0]
    _, decided = env.run(call)
    assert not any(d["allowed"] for d in decided)
    assert "outside the workspace" in env.reached_model()
