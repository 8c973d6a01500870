"""`agent-tui -p` as a real subprocess against the fake LLM server, over both APIs (issue 2)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, last_json, new_workspace, run_on_api

KEY = "sk-test-SECRET-abc123"
APIS = ["anthropic", "openai"]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"main.py": 'print("the-file-text-42")\n'})


def run(
    ws: Path,
    fake: FakeLLM,
    api: str,
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    key: str | None = KEY,
) -> subprocess.CompletedProcess[str]:
    return run_on_api(ws, fake, api, *args, key=key, env=env, stdin=stdin)


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return dict(last_json(proc))


def all_saved_text(ws: Path) -> str:
    state = ws.parent / "state"
    return "".join(p.read_text(errors="replace") for p in state.rglob("*") if p.is_file())


def assert_key_nowhere(proc: subprocess.CompletedProcess[str], ws: Path) -> None:
    for text in (proc.stdout, proc.stderr, all_saved_text(ws)):
        assert KEY not in text and "SECRET" not in text


@pytest.mark.parametrize("api", APIS)
def test_hello_streams_the_answer(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    fake_llm.set_script([{"text": "Hello from the fake model."}])
    proc = run(ws, fake_llm, api, "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from the fake model.\n"
    assert_key_nowhere(proc, ws)


@pytest.mark.parametrize("api", APIS)
def test_read_file_round_trips_to_the_model(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "call_1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "It prints a greeting."},
        ]
    )
    proc = run(ws, fake_llm, api, "-p", "what does main.py do?", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = result_of(proc)
    assert result["result"] == "It prints a greeting."
    assert result["tool_calls"] == [{"id": "call_1", "name": "read_file", "is_error": False}]
    second = json.dumps(fake_llm.requests[1])
    assert "the-file-text-42" in second  # the file's text reached the model as the tool result
    assert_key_nowhere(proc, ws)


@pytest.mark.parametrize("api", APIS)
def test_stream_json_is_one_object_per_line_ending_with_the_result(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, api, "-p", "go", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "turn_started" and types[-1] == "result"
    for expected in (
        "tool_call_started",
        "tool_call_decided",
        "tool_call_finished",
        "text_delta",
        "usage",
        "turn_finished",
    ):
        assert expected in types
    decided = next(line for line in lines if line["type"] == "tool_call_decided")
    assert decided["allowed"] is True and decided["step"] == "read_only"


@pytest.mark.parametrize("api", APIS)
def test_piped_stdin_is_added_as_context(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    fake_llm.set_script([{"text": "Looks fine."}])
    proc = run(ws, fake_llm, api, "-p", "review this", stdin="diff --git a/x b/x\n+added-line-77\n")
    assert proc.returncode == 0, proc.stderr
    body = json.dumps(fake_llm.requests[0])
    assert "review this" in body and "added-line-77" in body


@pytest.mark.parametrize("api", APIS)
def test_overloaded_then_success_is_retried(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    status = 529 if api == "anthropic" else 503
    fake_llm.set_script(
        [{"text": "made it", "fault": {"status": status, "times": 2, "retry_after": 0}}]
    )
    proc = run(ws, fake_llm, api, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "made it"
    assert len(fake_llm.requests) == 3


@pytest.mark.parametrize("api", APIS)
def test_cut_stream_exits_1_keeping_the_partial_text(ws: Path, fake_llm: FakeLLM, api: str) -> None:
    fake_llm.set_script(
        [{"text": "The first part arrives and then the line drops.", "fault": "cut"}]
    )
    proc = run(ws, fake_llm, api, "-p", "hi", "--output-format", "json")
    assert proc.returncode == 1
    result = result_of(proc)
    assert result["is_error"] and result["exit_code"] == 1
    assert result["result"].startswith("The first part")
    assert "retry" in result["errors"][0]
    assert_key_nowhere(proc, ws)


@pytest.mark.parametrize("api", APIS)
def test_refused_key_exits_1_with_a_clear_message_and_no_key(
    ws: Path, fake_llm: FakeLLM, api: str
) -> None:
    fake_llm.set_script([{"text": "never", "fault": {"status": 401}}])
    proc = run(ws, fake_llm, api, "-p", "hi")
    assert proc.returncode == 1
    assert "key" in proc.stderr.lower()
    assert_key_nowhere(proc, ws)


@pytest.mark.parametrize("api", APIS)
def test_no_key_for_the_official_api_exits_2_saying_how_to_set_one(api: str, ws: Path) -> None:
    env = clean_env(
        {"AGENT_TUI_STATE_DIR": str(ws.parent / "state"), "HOME": str(ws.parent / "home")}
    )
    proc = subprocess.run(
        [sys.executable, "-m", "agent_tui", "-p", "hi", "--provider", api],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr and "--base-url" in proc.stderr


def test_bad_config_exits_2_naming_file_and_key(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agentrc").write_text('[model]\nmax_tokens = "many"\n')
    proc = run(ws, fake_llm, "anthropic", "-p", "hi")
    assert proc.returncode == 2
    assert ".agentrc" in proc.stderr and "model.max_tokens" in proc.stderr


def test_edit_tools_are_declined_headless_unless_allowed(ws: Path, fake_llm: FakeLLM) -> None:
    call = {"id": "w1", "name": "create_file", "input": {"path": "out.txt", "content": "hi\n"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "ok, skipped"}])
    proc = run(ws, fake_llm, "anthropic", "-p", "write it")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "out.txt").exists()
    assert "declined" in json.dumps(fake_llm.requests[1])  # the model was told, the run went on
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "written"}])
    proc = run(ws, fake_llm, "anthropic", "-p", "write it", "--allow-tool", "create_file")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "out.txt").read_text() == "hi\n"


def test_on_approval_fail_exits_3(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {
                        "id": "w1",
                        "name": "create_file",
                        "input": {"path": "out.txt", "content": "x"},
                    }
                ]
            }
        ]
    )
    proc = run(ws, fake_llm, "openai", "-p", "write it", "--on-approval", "fail")
    assert proc.returncode == 3
    assert not (ws / "out.txt").exists()
    assert "approval" in proc.stderr


def test_max_turns_exits_4(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": f"r{i}", "name": "read_file", "input": {"path": "main.py"}}]}
            for i in range(4)
        ]
    )
    proc = run(ws, fake_llm, "anthropic", "-p", "loop", "--max-turns", "2")
    assert proc.returncode == 4
    assert "round limit" in proc.stderr


def test_help_command_prints_the_registry_without_calling_the_model(
    ws: Path, fake_llm: FakeLLM
) -> None:
    proc = run(ws, fake_llm, "anthropic", "-p", "/help")
    assert proc.returncode == 0, proc.stderr
    assert "/reset-confirmations" in proc.stdout and "@workspace" in proc.stdout
    assert fake_llm.requests == []


def test_app_only_command_exits_2_instead_of_doing_nothing(ws: Path, fake_llm: FakeLLM) -> None:
    proc = run(ws, fake_llm, "anthropic", "-p", "/tools")
    assert proc.returncode == 2
    assert "only in the app" in proc.stderr
    assert fake_llm.requests == []


def test_recorded_session_replays_offline_with_the_scripted_provider(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "Recorded answer."},
        ]
    )
    record = ws.parent / "session.jsonl"
    live = run(ws, fake_llm, "openai", "-p", "go", "--record", str(record))
    assert live.returncode == 0, live.stderr
    assert KEY not in record.read_text()
    replay = subprocess.run(
        [
            sys.executable,
            "-m",
            "agent_tui",
            "-p",
            "go",
            "--script",
            str(record),
            "--output-format",
            "json",
        ],
        cwd=ws,
        env=clean_env({"AGENT_TUI_STATE_DIR": str(ws.parent / "state2")}),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert replay.returncode == 0, replay.stderr
    result = result_of(replay)
    assert result["result"] == "Recorded answer."
    assert [c["name"] for c in result["tool_calls"]] == ["read_file"]


def test_a_crashing_turn_is_logged_to_the_state_dir_not_stderr(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "nope", "fault": {"status": 401}}])
    proc = run(ws, fake_llm, "anthropic", "-p", "hi")
    assert proc.returncode == 1
    log = ws.parent / "state" / "logs" / "agent-tui.log"
    text = log.read_text()
    assert "ProviderAuthError" in text and "401" in text
    assert "Traceback" not in proc.stderr  # the user sees one clear line, not a stack
    assert KEY not in text


def test_yolo_warns_once_on_stderr_and_runs_the_edit(ws: Path, fake_llm: FakeLLM) -> None:
    call = {"id": "w1", "name": "create_file", "input": {"path": "y.txt", "content": "y\n"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "done"}])
    proc = run(ws, fake_llm, "anthropic", "-p", "write", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("--yolo") == 1
    assert (ws / "y.txt").read_text() == "y\n"
