"""What a session keeps besides its conversation (issue 27 item 2, issue 26 item 4), through real
``agent-tui -p`` runs on the fake model server: the extra roots of ``--add-dir`` and ``/add-dir``
come back with ``--continue`` (each checked again: one gone or no longer allowed is left out with
a note, an edited file's hostile roots are refused), and so do the tools ``tool_search`` loaded
(one whose MCP server is gone is dropped with one notice)."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake, tool_results
from tests.toolsearch.helpers import catalog_agentrc, offered

TEXT = "library-text-5519"


@dataclass
class Env:
    ws: Path
    lib: Path
    home: Path
    fake: FakeLLM

    def run(
        self, script: list[dict[str, Any]], *flags: str, prompt: str = "go"
    ) -> subprocess.CompletedProcess[str]:
        self.fake.set_script(script)
        return run_on_fake(
            self.ws, self.fake, "--model", "m", "-p", prompt, "--on-approval", "deny",
            "--output-format", "json", *flags,
            home=self.home, state=self.home.parent / "state", timeout=90,
        )  # fmt: skip

    def read_lib(self, *flags: str) -> tuple[subprocess.CompletedProcess[str], str]:
        """The model reads the extra root's file; the process and what the model got back."""
        call = {"id": "r1", "name": "read_file", "input": {"path": str(self.lib / "notes.txt")}}
        proc = self.run([{"tool_calls": [call]}, {"text": "ok"}], *flags)
        return proc, tool_results(self.fake.requests[-1])["r1"]

    def state_lines(self) -> list[dict[str, Any]]:
        (path,) = (self.home.parent / "state" / "sessions").glob("*/*.jsonl")
        lines = [json.loads(x) for x in path.read_text().splitlines()]
        return [line for line in lines if line["type"] == "state"]


@pytest.fixture
def env(tmp_path: Path, fake_llm: FakeLLM) -> Env:
    ws, lib, home = tmp_path / "ws", tmp_path / "lib", tmp_path / "home"
    for folder in (ws, lib, home):
        folder.mkdir()
    (lib / "notes.txt").write_text(TEXT + "\n")
    return Env(ws, lib, home, fake_llm)


def test_an_extra_root_of_add_dir_comes_back_with_continue(env: Env) -> None:
    first = env.run([{"text": "hi"}], "--add-dir", str(env.lib))
    assert first.returncode == 0, first.stderr
    assert env.state_lines() == [{"type": "state", "extra_roots": [str(env.lib.resolve())]}]
    proc, seen = env.read_lib("--continue")
    assert proc.returncode == 0, proc.stderr
    assert TEXT in seen  # read unasked, as in the run that added it
    assert "left out" not in proc.stderr
    assert len(env.state_lines()) == 1  # unchanged: not written again


def test_an_extra_root_of_the_add_dir_command_comes_back(env: Env) -> None:
    env.run([{"text": "hi"}])
    added = env.run([], "--continue", prompt=f"/add-dir {env.lib}")
    assert added.returncode == 0, added.stderr
    assert env.state_lines()[-1]["extra_roots"] == [str(env.lib.resolve())]
    _, seen = env.read_lib("--continue")
    assert TEXT in seen


@pytest.mark.parametrize(
    ("change", "why"), [("moved", "is not a folder"), ("link-to-home", "is your home folder")]
)
def test_a_vanished_or_refused_extra_root_is_left_out_with_a_note(
    env: Env, change: str, why: str
) -> None:
    env.run([{"text": "hi"}], "--add-dir", str(env.lib))
    shutil.move(env.lib, env.lib.parent / "moved")
    if change == "link-to-home":  # back, but now it leads to the home folder
        env.lib.symlink_to(env.home)
        (env.home / "notes.txt").write_text(TEXT + "\n")
    proc, seen = env.read_lib("--continue")
    assert f"note: The session's extra root {env.lib} was left out" in proc.stderr
    assert why in proc.stderr
    assert TEXT not in seen and "outside the workspace" in seen
    assert "extra_roots" not in env.state_lines()[-1]  # the session goes on without it
    proc, _ = env.read_lib("--continue")
    assert "left out" not in proc.stderr  # said once


def test_hostile_roots_in_an_edited_session_file_are_refused(env: Env) -> None:
    env.run([{"text": "hi"}])
    (path,) = (env.home.parent / "state" / "sessions").glob("*/*.jsonl")
    roots: list[object] = ["/", str(env.home), "~", "bad\u0000name", 7, {"x": 1}, str(env.ws)]
    hostile = {"type": "state", "extra_roots": roots, "tools_loaded": "not-a-list"}
    with path.open("a") as out:
        out.write(json.dumps(hostile) + "\n")
    proc, seen = env.read_lib("--continue")
    assert proc.returncode == 0, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "was left out" in line]
    assert len(notes) == 5, proc.stderr  # "/", home, "~", the NUL, the workspace; 7 and {} dropped
    assert "is the root of the file system" in proc.stderr
    assert "inside the workspace" in proc.stderr
    assert "outside the workspace" in seen


def _catalog(env: Env, tools: int) -> None:
    marks = env.home.parent / "marks"
    marks.mkdir(exist_ok=True)
    (env.home / ".agentrc").write_text(catalog_agentrc(tools, marks))


def test_tools_loaded_by_tool_search_come_back_and_a_gone_one_is_noted_once(env: Env) -> None:
    _catalog(env, 300)
    search = {"id": "s1", "name": "tool_search", "input": {"query": "weather"}}
    first = env.run([{"tool_calls": [search]}, {"text": "found"}], "--yolo")
    assert first.returncode == 0, first.stderr
    weather = "mcp_catalog_get_weather_forecast"
    assert env.state_lines()[-1]["tools_loaded"] == [weather]
    again = env.run([{"text": "ok"}], "--continue", "--yolo")
    assert again.returncode == 0, again.stderr
    assert weather in offered(env.fake.requests[-1])  # no second search needed
    (env.home / ".agentrc").write_text("")  # the MCP server is gone
    gone = env.run([{"text": "ok"}, {"text": "ok"}], "--continue", "--yolo")
    assert gone.returncode == 0, gone.stderr
    notices = json.loads(gone.stdout.strip().splitlines()[-1])["notices"]
    assert [n for n in notices if "no longer exists" in n] == [
        f"1 tool loaded earlier in this session no longer exists (an MCP server gone?): {weather}"
    ]
    assert weather not in offered(env.fake.requests[-1])
    assert "tools_loaded" not in env.state_lines()[-1]  # dropped from the file too
