"""Automatic compaction in a long ``agent-tui -p`` run (issue 12 §3), real processes, both APIs.

Every scripted turn carries a text and a tool call, so whichever turn the summary request is
answered with, its text is the summary: the test finds the summary request by what it was sent
(the prompt template) rather than by a count that would shift with the system prompt.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.conversation import ELIDED
from agent_tui.resources import data_dir
from tests.fakes.llm_server import FakeLLM
from tests.fakes.validate import problems
from tests.helpers import last_json, run_on_api

KEY = "sk-test-compaction"
APIS = ["anthropic", "openai"]
ROUNDS = 16
RC = (
    "[model]\ncontext_window = 12000\nmax_tokens = 500\nmax_retries = 0\n[agent]\nmax_rounds = 40\n"
)
REQUEST = "read every part file and report REQUEST-MARK-7"


def run(ws: Path, fake: FakeLLM, api: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_on_api(ws, fake, api, *args, key=KEY, rc=RC, timeout=90)


def script() -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = [
        {
            "text": f"SUMMARY-{n}: reading the part files, {n} read so far.",
            "tool_calls": [{"id": f"r{n}", "name": "read_file", "input": {"path": f"part{n}.txt"}}],
        }
        for n in range(ROUNDS)
    ]
    # Summary requests take turns too: enough final answers for however many there are.
    return [*turns, *[{"text": "all parts read"}] * 4]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    for n in range(ROUNDS):
        lines = "".join(f"PART-{n}-MARK line {k} of this part\n" for k in range(120))
        (path / f"part{n}.txt").write_text(lines)
    return path


def is_summary_request(body: dict[str, Any]) -> bool:
    first_line = (data_dir("prompts") / "compact.md").read_text().splitlines()[0]
    return first_line in json.dumps(body)


@pytest.mark.parametrize("api", APIS)
def test_a_long_run_compacts_before_pruning_and_says_so(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script(script())
    proc = run(ws, fake_llm, api, "-p", REQUEST)
    assert proc.returncode == 0, proc.stderr
    requests = fake_llm.requests
    summaries = [n for n, body in enumerate(requests) if is_summary_request(body)]
    assert summaries, "the run never compacted"
    first = summaries[0]
    # Compaction came first: no request before it had anything pruned.
    assert not any(ELIDED in json.dumps(body) for body in requests[:first])
    asked = json.dumps(requests[first], ensure_ascii=False)
    assert "PART-0-MARK" in asked and REQUEST in asked and "tools" not in requests[first]
    # The request after it: the summary (and the request verbatim) instead of the old rounds.
    after = json.dumps(requests[first + 1], ensure_ascii=False)
    summary = script()[first]["text"]  # one request per turn: request n got turn n
    assert summary in after and "PART-0-MARK" not in after and REQUEST in after
    assert "Summary of the earlier conversation" in after
    for body in requests:
        assert problems(body, api) == []
    notes = [line for line in proc.stderr.splitlines() if "compacted automatically" in line]
    assert notes and all(line.startswith("note: Context near the window") for line in notes)
    assert len(notes) == len(summaries)
    # Each compaction said it began, with its figures, before the (slow) summary came back.
    lines = proc.stderr.splitlines()
    started = [n for n, line in enumerate(lines) if line.startswith("note: compacting ≈")]
    done = [n for n, line in enumerate(lines) if "compacted automatically" in line]
    assert len(started) == len(done) and all(s < d for s, d in zip(started, done, strict=True))
    assert all("% of the context)…" in lines[n] for n in started)


@pytest.mark.parametrize("api", APIS)
def test_a_long_run_reports_compaction_in_json_notices(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script(script())
    proc = run(ws, fake_llm, api, "-p", REQUEST, "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = last_json(proc)
    compacted = [n for n in result["notices"] if "compacted automatically" in n]
    assert compacted and all("replaced by a summary" in n for n in compacted)
    summaries = sum(is_summary_request(body) for body in fake_llm.requests)
    assert len(compacted) == summaries
    assert result["result"] == "all parts read"


@pytest.mark.parametrize("api", APIS)
def test_compact_as_a_headless_command_on_a_fresh_session_says_there_is_nothing(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    proc = run(ws, fake_llm, api, "-p", "/compact", "--output-format", "json")
    assert proc.returncode == 2
    result = last_json(proc)
    assert result["errors"] and "nothing to compact yet" in result["errors"][0]
    assert fake_llm.requests == []


@pytest.mark.parametrize("api", APIS)
def test_compact_with_continue_summarises_the_saved_session_and_the_next_run_sends_the_summary(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    """``-p "/compact" --continue`` acts on the session the earlier runs saved; the run after it
    sends the summary in place of the old turns (the session file keeps them all)."""
    fake_llm.set_script(
        [
            {"text": "OLD-ANSWER-1"},
            {"text": "OLD-ANSWER-2"},
            {"text": "OLD-ANSWER-3"},
            {"text": "SUMMARY-OF-THE-SESSION: they asked three questions."},
            {"text": "fresh answer"},
        ]
    )
    for n in range(1, 4):
        flags = ["--continue"] if n > 1 else []
        # Long enough that the summary is smaller (a summary that is not is not kept).
        question = f"OLD-QUESTION-{n} " + "with details " * 60
        assert run(ws, fake_llm, api, "-p", question, *flags).returncode == 0
    compacted = run(ws, fake_llm, api, "-p", "/compact", "--continue")
    assert compacted.returncode == 0, compacted.stderr
    assert is_summary_request(fake_llm.requests[3])
    assert "OLD-QUESTION-1" in json.dumps(fake_llm.requests[3])
    after = run(ws, fake_llm, api, "-p", "next", "--continue")
    assert after.returncode == 0, after.stderr
    sent = json.dumps(fake_llm.requests[4])
    assert "SUMMARY-OF-THE-SESSION" in sent
    assert "OLD-QUESTION-1" not in sent and "OLD-ANSWER-1" not in sent
    assert problems(fake_llm.requests[4], api) == []
    files = list((ws.parent / "state" / "sessions").rglob("*.jsonl"))
    assert len(files) == 1 and "OLD-QUESTION-1" in files[0].read_text()


@pytest.mark.parametrize("api", APIS)
def test_a_summary_longer_than_what_it_replaces_is_not_kept(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    """Issue 23 §10: a compaction that grew the context (73 -> 108 tokens) was kept."""
    fake_llm.set_script(
        [
            {"text": "OLD-ANSWER-1"},
            {"text": "OLD-ANSWER-2"},
            {"text": "OLD-ANSWER-3"},
            {"text": "A RAMBLING SUMMARY " * 60},
            {"text": "fresh answer"},
        ]
    )
    for n in range(1, 4):
        flags = ["--continue"] if n > 1 else []
        assert run(ws, fake_llm, api, "-p", f"OLD-QUESTION-{n}", *flags).returncode == 0
    compacted = run(ws, fake_llm, api, "-p", "/compact", "--continue")
    assert compacted.returncode == 0, compacted.stderr
    assert is_summary_request(fake_llm.requests[3])
    assert "note: Compaction not kept" in compacted.stderr
    assert "replaced by a summary" not in compacted.stderr
    after = run(ws, fake_llm, api, "-p", "next", "--continue")
    assert after.returncode == 0, after.stderr
    sent = json.dumps(fake_llm.requests[4])
    assert "OLD-QUESTION-1" in sent and "RAMBLING" not in sent
