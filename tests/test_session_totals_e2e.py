"""A session's totals survive ``--continue`` (issue 27): tokens, money per model and the lines its
edits changed, through real ``agent-tui -p`` processes against the fake server and the real
session file; an undo takes its lines back out, and a file written before the figures existed
still loads (from zero)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import last_json, new_workspace, run_on_api

HAIKU = "claude-haiku-4-5"  # $1 in, $5 out per million (agent/pricing.py)
SONNET = "claude-sonnet-4"  # $3 in, $15 out
EDITS = ("--allow-tool", "create_file", "--allow-tool", "replace_string_in_file")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"main.py": 'print("hi")\n'})


def run(
    ws: Path, fake: FakeLLM, *args: str, model: str = HAIKU
) -> subprocess.CompletedProcess[str]:
    return run_on_api(ws, fake, "anthropic", *args, *EDITS, key="k", model=model)


def edit_turn() -> list[dict[str, Any]]:
    """Two rounds: a new file of 3 lines and an edit (+2 -1), then the answer."""
    calls = [
        {"id": "c1", "name": "create_file", "input": {"path": "new.txt", "content": "a\nb\nc\n"}},
        {
            "id": "r1",
            "name": "replace_string_in_file",
            "input": {
                "path": "main.py",
                "old_string": 'print("hi")',
                "new_string": 'print("hello")\nprint("bye")',
            },
        },
    ]
    return [
        {"tool_calls": calls, "usage": {"input_tokens": 100_000, "output_tokens": 10_000}},
        {"text": "done", "usage": {"input_tokens": 1_000, "output_tokens": 100}},
    ]


def cost(ws: Path, fake: FakeLLM, *args: str) -> dict[str, Any]:
    """``-p /cost --continue``'s figures (its ``command_handled`` data) and its table."""
    proc = run(ws, fake, "-p", "/cost", "--continue", "--output-format", "stream-json", *args)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    handled = [line for line in lines if line.get("type") == "command_handled"]
    assert len(handled) == 1
    return {**handled[0]["data"], "message": handled[0]["message"]}


def session_file(ws: Path) -> Path:
    files = sorted((ws.parent / "state" / "sessions").glob("*/*.jsonl"))
    assert len(files) == 1
    return files[0]


FIRST_USD = (101_000 * 1.0 + 10_100 * 5.0) / 1e6


def test_continue_carries_the_sessions_tokens_money_and_lines(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(edit_turn())
    first = run(ws, fake_llm, "-p", "edit", "--output-format", "json")
    assert first.returncode == 0, first.stderr
    assert last_json(first)["cost_usd"] == pytest.approx(FIRST_USD)
    assert (ws / "new.txt").read_text() == "a\nb\nc\n"

    spent = cost(ws, fake_llm)  # a new process: the figures come from the session file
    assert spent["session"]["input_tokens"] == 101_000
    assert spent["session"]["output_tokens"] == 10_100
    assert spent["session_cost_usd"] == pytest.approx(FIRST_USD)
    assert (spent["lines_added"], spent["lines_removed"]) == (5, 1)
    assert "| session | 101,000 | 10,100 | 0 | 0 | $0.1515 |" in spent["message"]
    assert "Edits: 5 lines added, 1 removed" in spent["message"]

    # Another model goes on: each part at its own price, the tokens summed.
    fake_llm.set_script([{"text": "ok", "usage": {"input_tokens": 10_000, "output_tokens": 1_000}}])
    third = run(ws, fake_llm, "-p", "more", "--continue", "--output-format", "json", model=SONNET)
    assert third.returncode == 0, third.stderr
    result = last_json(third)
    assert result["usage"]["input_tokens"] == 111_000
    assert result["usage"]["output_tokens"] == 11_100
    assert result["cost_usd"] == pytest.approx(FIRST_USD + (10_000 * 3.0 + 1_000 * 15.0) / 1e6)
    assert cost(ws, fake_llm)["session_cost_usd"] == pytest.approx(result["cost_usd"])


def test_undo_in_a_later_run_takes_the_turns_lines_out(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(edit_turn())
    assert run(ws, fake_llm, "-p", "edit").returncode == 0
    undo = run(ws, fake_llm, "-p", "/undo", "--continue")
    assert undo.returncode == 0, undo.stderr
    assert not (ws / "new.txt").exists()
    spent = cost(ws, fake_llm)
    assert (spent["lines_added"], spent["lines_removed"]) == (0, 0)
    assert spent["session"]["input_tokens"] == 101_000  # money spent stays spent


def test_max_cost_counts_what_the_earlier_runs_spent(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(edit_turn())
    assert run(ws, fake_llm, "-p", "edit").returncode == 0
    fake_llm.set_script([{"text": "never sent"}])
    proc = run(ws, fake_llm, "-p", "more", "--continue", "--max-cost", "0.15")
    assert proc.returncode == 4, proc.stderr
    assert "$0.1515 spent in this session" in proc.stderr
    assert len(fake_llm.requests) == 2  # the first run's two; none in this one


def test_a_session_file_without_the_figures_loads_from_zero(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(edit_turn())
    assert run(ws, fake_llm, "-p", "edit").returncode == 0
    path = session_file(ws)
    old = []
    for raw in path.read_text().splitlines():  # as the file was before usage and lines were kept
        line = json.loads(raw)
        if line.get("event") == "usage":
            continue
        line.pop("lines_added", None)
        line.pop("lines_removed", None)
        old.append(json.dumps(line))
    path.write_text("\n".join(old) + "\n")

    spent = cost(ws, fake_llm)
    assert spent["session"]["input_tokens"] == 0 and spent["session_cost_usd"] == 0.0
    assert (spent["lines_added"], spent["lines_removed"]) == (0, 0)
    fake_llm.set_script([{"text": "still here", "usage": {"input_tokens": 10, "output_tokens": 1}}])
    proc = run(ws, fake_llm, "-p", "go on", "--continue", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert last_json(proc)["result"] == "still here"
    assert last_json(proc)["usage"]["input_tokens"] == 10


def test_a_fork_starts_with_the_originals_figures(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(edit_turn())
    assert run(ws, fake_llm, "-p", "edit").returncode == 0
    fake_llm.set_script([{"text": "forked", "usage": {"input_tokens": 10, "output_tokens": 1}}])
    proc = run(ws, fake_llm, "-p", "go", "--continue", "--fork", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    assert result["usage"]["input_tokens"] == 101_010
    assert result["cost_usd"] == pytest.approx(FIRST_USD + (10 * 1.0 + 1 * 5.0) / 1e6)
