"""End to end: ``agent-tui -p`` against the fake LLM server; assert on the requests it received."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_fake
from tests.participants.agent_double import READ_ONLY_TOOLS


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, home=True)


def run_cli(
    workspace: Path, fake_llm: FakeLLM, prompt: str, stdin: str = "", extra: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    home = workspace.parent / "home"
    return run_on_fake(
        workspace,
        fake_llm,
        "-p",
        prompt,
        "--on-approval",
        "deny",
        *(extra or []),
        home=home,
        state=workspace.parent / "state",
        env={"AGENT_TUI_USER_CONFIG": str(home / ".agentrc"), "ANTHROPIC_API_KEY": "test-key"},
        stdin=stdin,
        timeout=60,
    )


def request_text(body: dict[str, Any]) -> str:
    parts = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(str(block.get("text", block.get("content", ""))) for block in content)
    return "\n".join(parts)


def test_workspace_explain_sends_only_read_only_tools(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "The loader reads .agentrc."}])

    done = run_cli(workspace, fake_llm, "@workspace /explain the config loader")

    assert done.returncode == 0, done.stderr
    assert "The loader reads .agentrc." in done.stdout
    (body,) = fake_llm.requests
    assert body["tools"], "the read-only tools are offered"
    assert {tool["name"] for tool in body["tools"]} <= READ_ONLY_TOOLS
    assert "You are @workspace" in str(body["system"])
    assert "Explain how this works in this codebase: the config loader" in request_text(body)


def test_file_reference_puts_the_file_text_in_the_request(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    (workspace / "notes.txt").write_text("the launch code is 0000\nsecond line\n")
    fake_llm.set_script([{"text": "Noted."}])

    done = run_cli(workspace, fake_llm, "summarise #file:notes.txt")

    assert done.returncode == 0, done.stderr
    (body,) = fake_llm.requests
    text = request_text(body)
    assert '<attachment label="#file:notes.txt">' in text
    assert "notes.txt (2 lines)\nthe launch code is 0000\nsecond line" in text
    assert "summarise #file:notes.txt" in text


def test_quoted_file_reference_with_a_space_puts_the_file_text_in_the_request(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    (workspace / "notes v2.txt").write_text("the launch code is 1234\nsecond line\nthird line\n")
    (workspace / "notes").write_text("the wrong file\n")  # what an unquoted parse would attach
    fake_llm.set_script([{"text": "Noted."}])

    done = run_cli(workspace, fake_llm, 'summarise #file:"notes v2.txt":2-3, briefly')

    assert done.returncode == 0, done.stderr
    (body,) = fake_llm.requests
    text = request_text(body)
    assert '<attachment label="#file:&quot;notes v2.txt&quot;:2-3">' in text
    assert "2\tsecond line\n3\tthird line" in text
    assert "launch code" not in text and "the wrong file" not in text


def test_unclosed_quote_in_a_file_reference_fails_before_sending(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    (workspace / "notes v2.txt").write_text("text\n")
    fake_llm.set_script([{"text": "should not be asked"}])

    done = run_cli(workspace, fake_llm, 'summarise #file:"notes v2.txt please')

    assert done.returncode == 2
    assert 'the opening " is never closed' in done.stderr + done.stdout
    assert '#file:"docs/my notes.txt"' in done.stderr + done.stdout  # says how to write it
    assert fake_llm.requests == []


def test_missing_file_reference_fails_before_sending(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "should not be asked"}])

    done = run_cli(workspace, fake_llm, "summarise #file:missing.txt")

    assert done.returncode == 2
    assert "#file:missing.txt" in done.stderr + done.stdout
    assert fake_llm.requests == []


def test_unknown_participant_fails_before_sending(workspace: Path, fake_llm: FakeLLM) -> None:
    done = run_cli(workspace, fake_llm, "@nobody hello")

    assert done.returncode == 2
    assert "@workspace" in done.stderr + done.stdout
    assert fake_llm.requests == []


def test_references_in_piped_stdin_are_left_alone(workspace: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "Two commits."}])

    done = run_cli(workspace, fake_llm, "summarise", stdin="fix #file:gone.py and #changes\n")

    assert done.returncode == 0, done.stderr
    (body,) = fake_llm.requests
    assert "fix #file:gone.py and #changes" in request_text(body)
    assert "<attachment" not in request_text(body)


def test_small_window_shrinks_the_attachment_and_reports_it(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    """Both rounds of a turn fit the window; the json result names what was cut."""
    (workspace / ".agentrc").write_text("[model]\ncontext_window = 6000\nmax_tokens = 1000\n")
    (workspace / "big.txt").write_text("".join(f"row {n} of the table\n" for n in range(1, 4001)))
    (workspace / "small.txt").write_text("tiny\n")
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "call_1", "name": "read_file", "input": {"path": "small.txt"}}]},
            {"text": "Row 2000 is fine."},
        ]
    )

    done = run_cli(
        workspace,
        fake_llm,
        "check #file:big.txt:1990-2010 please",
        extra=["--output-format", "json"],
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    first, second = fake_llm.requests
    assert "row 2000 of the table" in request_text(first)
    assert result["pruned"] == [] or all("big.txt" in p for p in result["pruned"])
    for body in (first, second):
        size = len(json.dumps(body["system"])) + len(json.dumps(body["messages"]))
        size += len(json.dumps(body.get("tools", [])))
        assert size / 4 <= 6000 - 1000 + 500  # the estimate's margin: framing JSON is extra
    uses = [
        b["id"]
        for m in second["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use"
    ]
    results = [
        b["tool_use_id"]
        for m in second["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert uses == results == ["call_1"]


def test_whole_big_file_is_shrunk_and_the_json_result_says_so(
    workspace: Path, fake_llm: FakeLLM
) -> None:
    (workspace / ".agentrc").write_text("[model]\ncontext_window = 6000\nmax_tokens = 1000\n")
    (workspace / "big.txt").write_text("".join(f"row {n} of the table\n" for n in range(1, 4001)))
    fake_llm.set_script([{"text": "It is a table."}])

    done = run_cli(workspace, fake_llm, "what is #file:big.txt", extra=["--output-format", "json"])

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(result["pruned"]) == 1
    assert result["pruned"][0].startswith("#file:big.txt (kept ")
    (body,) = fake_llm.requests
    text = request_text(body)
    assert "\nrow 1 of the table" in text and "lines omitted]" in text
    assert "row 4000 of the table" not in text
