"""Subfolder AGENTS.md files (issue 16 item 4) reach the model with the first tool result that
touches a path under them, once per conversation, through `agent-tui -p` and the fake server."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

SECRET = "SECRET-KEY-MATERIAL-5151"


def _agent(tmp_path: Path, ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "k",
    }
    return run_cli(ws, "--provider", "anthropic", "--base-url", fake.url, *args, env=env)


def _read(i: int, path: str) -> dict[str, object]:
    return {"id": f"c{i}", "name": "read_file", "input": {"path": path}}


def _results(fake: FakeLLM) -> list[str]:
    """The tool results' text, one per request after the first."""
    return [json.dumps(r["messages"][-1]) for r in fake.requests[1:]]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / "pkg" / "sub").mkdir(parents=True)
    (path / "AGENTS.md").write_text("Root rule.\n")
    (path / "pkg" / "AGENTS.md").write_text("Pkg rule: use tabs.\x1b[2J\n")
    (path / "pkg" / "a.py").write_text("a = 1\n")
    (path / "pkg" / "sub" / "b.py").write_text("b = 2\n")
    (path / "top.py").write_text("t = 0\n")
    return path


def test_subfolder_agents_md_comes_with_the_first_read_under_it_and_only_once(
    tmp_path: Path, ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [_read(1, "top.py")]},
            {"tool_calls": [_read(2, "pkg/a.py")]},
            {"tool_calls": [_read(3, "pkg/sub/b.py")]},
            {"text": "done"},
        ]
    )

    proc = _agent(tmp_path, ws, fake_llm, "-p", "read them")

    assert proc.returncode == 0, proc.stderr
    top, first, second = _results(fake_llm)
    assert "Pkg rule" not in top and "Root rule" not in top
    assert '<instructions file=\\"pkg/AGENTS.md\\">' in first and "a = 1" in first
    assert "\\u241b[2J" in first and "\\u001b" not in first  # ESC made visible
    assert "Pkg rule" not in second and "b = 2" in second
    assert json.dumps(fake_llm.requests[0]["system"]).count("Pkg rule") == 0


def test_a_subfolder_agents_md_linked_outside_is_not_read(
    tmp_path: Path, ws: Path, fake_llm: FakeLLM
) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text(SECRET)
    (ws / "pkg" / "sub" / "AGENTS.md").symlink_to(secret)
    fake_llm.set_script([{"tool_calls": [_read(1, "pkg/sub/b.py")]}, {"text": "done"}])

    proc = _agent(tmp_path, ws, fake_llm, "-p", "read b")

    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests)
    assert SECRET not in sent
    assert "pkg/sub/AGENTS.md not used: it leads to" in sent
    assert "Pkg rule" in sent  # the folder above still applies


def test_an_edit_under_a_subfolder_brings_its_agents_md_too(
    tmp_path: Path, ws: Path, fake_llm: FakeLLM
) -> None:
    edit = {
        "id": "c1",
        "name": "replace_string_in_file",
        "input": {"path": "pkg/sub/b.py", "old_string": "b = 2", "new_string": "b = 3"},
    }
    fake_llm.set_script([{"tool_calls": [edit]}, {"text": "done"}])

    proc = _agent(tmp_path, ws, fake_llm, "-p", "edit b", "--yolo")

    assert proc.returncode == 0, proc.stderr
    assert (ws / "pkg" / "sub" / "b.py").read_text() == "b = 3\n"
    (result,) = _results(fake_llm)
    assert '<instructions file=\\"pkg/AGENTS.md\\">' in result
