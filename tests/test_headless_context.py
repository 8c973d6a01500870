"""`agent-tui -p` says what it left out and what went wrong with an answer (issue 11.2-4).

Real subprocesses against the fake LLM server: empty and cut answers are reported (stderr in text
mode, ``notices`` in json) with exit 0; every request that prunes says so; a server's "context
exceeded" answer in each server's own shape is pruned to and retried once.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.conversation import ELIDED
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.helpers import last_json, new_workspace, run_on_api

KEY = "sk-test-context"
APIS = ["anthropic", "openai"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path)


def run(
    ws: Path, fake: FakeLLM, api: str, *args: str, rc: str = ""
) -> subprocess.CompletedProcess[str]:
    """``agent-tui -p`` against ``fake``; ``rc`` is the user's ~/.agentrc."""
    return run_on_api(ws, fake, api, *args, key=KEY, rc=rc)


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return dict(last_json(proc))


@pytest.mark.parametrize("api", APIS)
def test_an_empty_answer_is_reported_not_passed_silently(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script([{}, {}])
    text = run(ws, fake_llm, api, "-p", "hello")
    assert text.returncode == 0
    assert "note: The model sent an empty answer" in text.stderr
    as_json = result_of(run(ws, fake_llm, api, "-p", "hello", "--output-format", "json"))
    assert as_json["notices"] == [
        (
            "The model sent an empty answer (stop reason: end_turn). "
            "Your message was left out of the conversation."
        )
    ]


@pytest.mark.parametrize("api", APIS)
def test_an_answer_cut_at_max_tokens_exits_0_but_says_so(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    cut = {"text": "The answer begins", "stop_reason": "max_tokens"}
    fake_llm.set_script([cut, cut])
    rc = "[model]\nmax_tokens = 777\n"
    text = run(ws, fake_llm, api, "-p", "explain", rc=rc)
    assert text.returncode == 0 and text.stdout.startswith("The answer begins")
    assert "answer was cut at max_tokens (777)" in text.stderr
    result = result_of(run(ws, fake_llm, api, "-p", "explain", "--output-format", "json", rc=rc))
    assert result["exit_code"] == 0 and result["result"] == "The answer begins"
    assert any("cut at max_tokens (777)" in n for n in result["notices"])


@pytest.mark.parametrize("api", APIS)
def test_every_request_that_prunes_tool_outputs_says_so(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    (ws / "big.txt").write_text("".join(f"line {n} of the big file\n" for n in range(120)))
    rounds = 14
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"r{n}", "name": "read_file", "input": {"path": "big.txt"}}]}
        for n in range(rounds)
    ]
    fake_llm.set_script([*script, {"text": "done"}])
    # compact_at = 0: pruning alone (compaction before pruning: tests/test_headless_compaction.py)
    rc = "[model]\ncontext_window = 9000\nmax_tokens = 500\n[agent]\nmax_rounds = 40\ncompact_at = 0\n"
    proc = run(ws, fake_llm, api, "-p", "read it again and again", rc=rc)
    assert proc.returncode == 0, proc.stderr
    pruned_requests = [n for n, r in enumerate(fake_llm.requests, 1) if ELIDED in json.dumps(r)]
    notes = [line for line in proc.stderr.splitlines() if line.startswith("note: pruned")]
    assert len(pruned_requests) >= 5  # the run is long enough that most requests prune
    assert notes == [line for line in notes if "tool output" in line] and len(notes) == len(
        pruned_requests
    )
    assert [int(line.split("request ")[1].split(")")[0]) for line in notes] == pruned_requests
    for body in fake_llm.requests:
        assert problems(body, api) == []

    fake_llm.set_script([*script, {"text": "done"}])
    result = result_of(run(ws, fake_llm, api, "-p", "again", "--output-format", "json", rc=rc))
    (entry,) = result["pruned"]
    assert entry.endswith("tool outputs of this turn") and int(entry.split()[0]) >= 5


OVERFLOW_CASES = [
    ("anthropic", "anthropic"),
    ("openai", "openai"),
    ("openai", "llamacpp"),
    ("openai", "vllm"),
]


@pytest.mark.parametrize(("api", "style"), OVERFLOW_CASES)
def test_context_exceeded_is_pruned_to_the_stated_limit_and_retried_once(
    ws: Path, api: str, style: str
) -> None:
    # The server counts 2 characters a token (numbers, JSON): twice what chars/4 expects.
    (ws / "data.txt").write_text("".join(f"{n},{n * 7},{n * 13}\n" for n in range(700)))
    script = [
        {"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "data.txt"}}]},
        {"tool_calls": [{"id": "r2", "name": "read_file", "input": {"path": "data.txt"}}]},
        {"text": "all read"},
    ]
    rc = "[model]\nmax_tokens = 300\n"  # context_window not set: 200,000 assumed
    with FakeLLM(script, context_limit=16000, overflow_style=style, chars_per_token=2) as fake:
        proc = run(ws, fake, api, "-p", "read data.txt twice", "--output-format", "json", rc=rc)
        bodies = fake.requests
    result = result_of(proc)
    assert result["exit_code"] == 0, result
    assert result["result"] == "all read"
    (notice,) = [n for n in result["notices"] if "too long" in n]
    assert "16,000 tokens" in notice and "model.context_window" in notice
    # One refused request, then one that fit; the later round fits from the start.
    sizes = [len(json.dumps(b)) // 2 for b in bodies]
    assert len(bodies) == 4 and sizes[2] > 16000 >= max(sizes[3], sizes[1])
    assert ELIDED in json.dumps(bodies[3])
    assert any("tool output" in p for p in result["pruned"])


@pytest.mark.parametrize(("api", "style"), OVERFLOW_CASES)
def test_a_request_that_cannot_fit_ends_with_an_error_naming_context_window(
    ws: Path, api: str, style: str
) -> None:
    with FakeLLM([{"text": "never"}], context_limit=1000, overflow_style=style) as fake:
        proc = run(ws, fake, api, "-p", "hello", "--output-format", "json")
        sent = len(fake.requests)
    result = result_of(proc)
    assert result["exit_code"] == 1
    (error,) = result["errors"]
    assert "model.context_window" in error
    assert sent <= 2  # retried once at most


@pytest.mark.parametrize("api", APIS)
def test_the_estimate_is_calibrated_from_reported_usage_so_a_dense_server_never_overflows(
    ws: Path, api: str
) -> None:
    # chars/4 says every request fits in 12,000 tokens; the server counts 2 characters a token.
    (ws / "data.txt").write_text("".join(f"{n},{n * 7},{n * 13}\n" for n in range(300)))
    script: list[dict[str, Any]] = [
        {"tool_calls": [{"id": f"r{n}", "name": "read_file", "input": {"path": "data.txt"}}]}
        for n in range(6)
    ]
    rc = "[model]\ncontext_window = 12000\nmax_tokens = 500\n"
    with FakeLLM([*script, {"text": "done"}], context_limit=12000, chars_per_token=2) as fake:
        proc = run(ws, fake, api, "-p", "read it", "--output-format", "json", rc=rc)
        bodies = fake.requests
    result = result_of(proc)
    assert result["exit_code"] == 0 and result["result"] == "done", result
    assert not [n for n in result["notices"] if "too long" in n]  # never refused
    assert len(bodies) == 7 and max(len(json.dumps(b)) // 2 for b in bodies) <= 12000
    assert result["pruned"]  # it fit by pruning, which chars/4 alone would not have done
