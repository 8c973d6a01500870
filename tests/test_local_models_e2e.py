"""What a small local model gets wrong, through `agent-tui -p` against the fake server (issue 28).

Near-valid calls are repaired and the model is told (item 1); a call told in prose gets one nudge
(item 1); a reply made of the chat template's markup is a failed round, nudged once, then the
run stops with an error (item 2), and so is a reply that only copies the context block it was
given (seen from gemma-3-270m in bench/bench_local_tasks.py); a local server gets sampling for tool use, and a reply that
repeats itself is stopped while it streams (item 3). Each test checks what reached the model, what happened on disk
and how the process ended.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.reply_checks import CONTEXT_NUDGE, ECHO_NUDGE, is_context_echo
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"hello.py": 'print("hello-from-the-file-28")\n'})


def run(
    ws: Path, fake: FakeLLM, *args: str, rc: str = "", timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return run_on_api(
        ws, fake, "openai", *args, key="sk-local", model="qwen", rc=rc, timeout=timeout
    )


def chat_requests(fake: FakeLLM) -> list[dict[str, Any]]:
    """The chat requests (not the window probe's)."""
    return [r for r in fake.requests if "messages" in r]


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def last_user_text(request: dict[str, Any]) -> str:
    message = [m for m in request["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    return content if isinstance(content, str) else " ".join(p["text"] for p in content)


def test_the_issue_call_single_quoted_content_and_a_stray_fence(
    ws: Path, fake_llm: FakeLLM
) -> None:
    """The call from the issue: refused before, now run, and the model told it was repaired."""
    text = (
        '```json\n{"name": "create_file", "arguments": {"path": "config.json", '
        '"content": \'{"debug": true}\'}}\n```\n```'
    )
    fake_llm.set_script([{"text": text}, {"text": "Created config.json."}])
    proc = run(ws, fake_llm, "-p", "make config.json", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "config.json").read_text() == '{"debug": true}'
    assert proc.stdout == "Created config.json.\n"
    [result] = tool_results(fake_llm.requests[1])
    assert "repaired" in result and "strict JSON" in result


def test_structured_call_with_python_literals_is_repaired(ws: Path, fake_llm: FakeLLM) -> None:
    arguments = "{'path': 'flag.txt', 'content': 'on' if True else 'off'}"  # not a literal
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "create_file", "input": arguments}]},
            {
                "tool_calls": [
                    {
                        "id": "c2",
                        "name": "create_file",
                        "input": "{'path': 'a.txt', 'content': 'x',}",
                    }
                ]
            },
            {"text": "Done."},
        ]
    )
    proc = run(ws, fake_llm, "-p", "go", "--yolo")
    assert proc.returncode == 0, proc.stderr
    [refused] = tool_results(fake_llm.requests[1])
    assert "not valid JSON" in refused and not (ws / "flag.txt").exists()
    [repaired] = tool_results(fake_llm.requests[2])[1:]
    assert "repaired" in repaired and (ws / "a.txt").read_text() == "x"
    # The history holds the call as the JSON that ran, not the Python the model wrote.
    assistant = [m for m in fake_llm.requests[2]["messages"] if m["role"] == "assistant"][1]
    arguments_sent = assistant["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments_sent) == {"path": "a.txt", "content": "x"}


def test_a_call_told_in_prose_gets_one_nudge(ws: Path, fake_llm: FakeLLM) -> None:
    prose = "I will use create_file with path notes.txt and content hello."
    call = '{"name": "create_file", "arguments": {"path": "notes.txt", "content": "hello"}}'
    fake_llm.set_script([{"text": prose}, {"text": call}, {"text": "Done."}])
    proc = run(ws, fake_llm, "-p", "write notes.txt", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "notes.txt").read_text() == "hello"
    assert "described a call to create_file" in last_user_text(fake_llm.requests[1])
    assert proc.stdout.endswith("Done.\n")  # text streams as it comes


def test_prose_is_nudged_once_a_turn_then_taken_as_the_answer(ws: Path, fake_llm: FakeLLM) -> None:
    prose = "Call create_file with path notes.txt and content hello."
    fake_llm.set_script([{"text": prose}, {"text": prose}])
    proc = run(ws, fake_llm, "-p", "write notes.txt", "--yolo", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.requests) == 2
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == prose


def test_an_answer_naming_a_tool_is_not_nudged(ws: Path, fake_llm: FakeLLM) -> None:
    answer = "hello.py prints a greeting; I read it with read_file."  # no `path` argument named
    fake_llm.set_script([{"text": answer}])
    proc = run(ws, fake_llm, "-p", "what does hello.py do?")
    assert proc.returncode == 0, proc.stderr
    assert len(fake_llm.requests) == 1 and proc.stdout == answer + "\n"


ECHO = '<tool_response>\nprint("hello-from-the-file-28")\n</tool_response>'
READ = {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "hello.py"}}]}


def test_an_echo_of_the_tool_result_is_nudged_once(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([READ, {"text": ECHO}, {"text": "It prints a greeting."}])
    proc = run(ws, fake_llm, "-p", "what does hello.py print?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("It prints a greeting.\n")
    assert last_user_text(fake_llm.requests[2]) == ECHO_NUDGE


@pytest.mark.parametrize(
    "second",
    [
        ECHO,
        "<|im_start|>assistant\n<tool_response>\nok\n</tool_response><|im_end|>",
        "<tool_call>\n<tool_response>ok</tool_response>\n</tool_call>",
    ],
)
def test_two_echoes_in_a_row_stop_with_an_error(ws: Path, fake_llm: FakeLLM, second: str) -> None:
    fake_llm.set_script([READ, {"text": ECHO}, {"text": second}])
    proc = run(ws, fake_llm, "-p", "what does hello.py print?", "--output-format", "json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["is_error"] and "tool_response" not in result["result"]
    assert "2 times in a row" in " ".join(result["errors"])
    assert len(fake_llm.requests) == 3


def test_unreadable_text_calls_twice_stop_with_an_error(ws: Path, fake_llm: FakeLLM) -> None:
    broken = '<tool_call>\n{"name": "read_file", "arguments": {"path": \n</tool_call>'
    fake_llm.set_script([{"text": broken}, {"text": broken}, {"text": "never asked"}])
    proc = run(ws, fake_llm, "-p", "read hello.py")
    assert proc.returncode == 1, proc.stderr
    assert "could not be read 2 times in a row" in proc.stderr
    assert len(fake_llm.requests) == 2


def test_a_local_server_gets_sampling_for_tool_use(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.context_flavour = "llamacpp"  # it says its window: llama.cpp's /props
    fake_llm.set_script([{"text": "hi"}])
    proc = run(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    [body] = chat_requests(fake_llm)
    assert body["temperature"] == 0.2 and body["max_tokens"] == 4096


def test_configured_sampling_wins_on_a_local_server(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.context_flavour = "ollama"
    fake_llm.set_script([{"text": "hi"}])
    rc = "[model]\ntemperature = 0.7\nmax_tokens = 8192\n"
    proc = run(ws, fake_llm, "-p", "hi", rc=rc)
    assert proc.returncode == 0, proc.stderr
    [body] = chat_requests(fake_llm)
    assert body["temperature"] == 0.7 and body["max_tokens"] == 8192


def test_a_server_that_does_not_say_its_window_keeps_the_defaults(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "hi"}])
    proc = run(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    [body] = chat_requests(fake_llm)
    assert "temperature" not in body and body["max_tokens"] == 8192


PARAGRAPH = "I will now read the file hello.py to see what it prints, and then I will answer.\n\n"


def test_a_reply_that_repeats_itself_is_stopped_while_it_streams(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "Let me look.\n\n" + PARAGRAPH * 400}])
    # The server holds the stream after ~3,600 characters of it: a client that read on to the
    # end would wait there past the run's timeout.
    fake_llm.hold_after = 300
    try:
        proc = run(ws, fake_llm, "-p", "hi", "--output-format", "json", timeout=25)
    finally:
        fake_llm.release.set()
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert "repeated the same text" in " ".join(result["errors"])
    # The conversation keeps what came before the loop and the loop once.
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "--continue", "-p", "and now?")
    assert proc.returncode == 0, proc.stderr
    [assistant] = [m for m in chat_requests(fake_llm)[-1]["messages"] if m["role"] == "assistant"]
    assert assistant["content"].startswith("Let me look.")
    assert assistant["content"].count("read the file hello.py") == 1


def context_echo(ws: Path) -> str:
    """A copy of the context block, as gemma-3-270m began its replies on bench_local_tasks.py."""
    return f"<context>\n# Environment\nWorkspace root: {ws}\nPlatform: linux\n</context>"


def test_a_copy_of_the_context_block_is_nudged_once(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": context_echo(ws)}, {"text": "It prints a greeting."}])
    proc = run(ws, fake_llm, "-p", "what does hello.py print?", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["result"] == "It prints a greeting."
    assert any("copied its context block" in n for n in map(str, result["notices"]))
    assert last_user_text(chat_requests(fake_llm)[1]) == CONTEXT_NUDGE


def test_two_copies_of_the_context_block_stop_with_an_error(ws: Path, fake_llm: FakeLLM) -> None:
    """Before: the copied block was the answer, exit 0."""
    echo = context_echo(ws)
    fake_llm.set_script([{"text": echo}, {"text": "<|im_start|>assistant\n" + echo}])
    proc = run(ws, fake_llm, "-p", "what does hello.py print?", "--output-format", "json")
    assert proc.returncode == 1, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["is_error"] and "Workspace root" not in result["result"]
    assert "copy of the context it was given 2 times" in " ".join(result["errors"])


@pytest.mark.parametrize(
    "text",
    [
        "<context>\n# Environment\nWorkspace root: /w\n</context>\n\nIt prints a greeting.",
        "Use a <context> element:\n<context>\n# Environment\n</context>\nlike that.",
        "<context>\n# Setup\nnot ours\n</context>",
    ],
)
def test_an_answer_with_more_than_the_context_block_is_an_answer(text: str) -> None:
    assert not is_context_echo(text)
