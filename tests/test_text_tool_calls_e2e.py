"""Tool calls a local model writes as text (issue 14.3), through `agent-tui -p` and the loop.

The model's text is hostile input: only a reply that is nothing but calls to offered tools is
run, and such a call meets the approvals like any other. Each test checks what reached the model
(the fake server's requests) and what happened on disk.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api

STREAMS = Path(__file__).parent / "fixtures" / "streams"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return new_workspace(
        tmp_path,
        {
            "hello.py": 'print("hello-from-the-file-71")\n',
            "a.py": "A_CONTENT = 1\n",
            "b.py": "B_CONTENT = 2\n",
        },
    )


def run(
    ws: Path, fake: FakeLLM, *args: str, user_config: str = ""
) -> subprocess.CompletedProcess[str]:
    return run_on_api(ws, fake, "openai", *args, key="sk-local", model="qwen", rc=user_config)


def tool_messages(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in request["messages"] if m["role"] == "tool"]


def call_names(request: dict[str, Any]) -> list[str]:
    return [
        c["function"]["name"]
        for m in request["messages"]
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]


def test_recorded_llamacpp_fenced_call_is_run(ws: Path, fake_llm: FakeLLM) -> None:
    """Qwen2.5-Coder on llama.cpp: the call as a ```json block, no tool_calls, finish "stop"."""
    fake_llm.replays = [(STREAMS / "llamacpp_qwen_text_tool_call.sse").read_bytes()]
    fake_llm.set_script([{"text": "It prints hello-from-the-file-71."}])
    proc = run(ws, fake_llm, "-p", "what does hello.py print?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "It prints hello-from-the-file-71.\n"  # the JSON was never the answer
    assert "(parsed from text)" in proc.stderr
    second = fake_llm.requests[1]
    assert call_names(second) == ["read_file"]
    [result] = tool_messages(second)
    assert "hello-from-the-file-71" in result["content"]
    # The call goes back as a structured call, not as the text the model wrote.
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][0]
    assert not assistant["content"]


def test_hermes_tags_with_several_calls_run_each(ws: Path, fake_llm: FakeLLM) -> None:
    calls = "\n".join(
        f'<tool_call>\n{{"name": "read_file", "arguments": {{"path": "{name}"}}}}\n</tool_call>'
        for name in ("a.py", "b.py")
    )
    fake_llm.set_script([{"text": calls}, {"text": "Both read."}])
    proc = run(ws, fake_llm, "-p", "read both", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["result"] == "Both read."
    assert [c["name"] for c in result["tool_calls"]] == ["read_file", "read_file"]
    contents = [m["content"] for m in tool_messages(fake_llm.requests[1])]
    assert "A_CONTENT" in contents[0] and "B_CONTENT" in contents[1]


@pytest.mark.parametrize(
    "text",
    [
        # prose before the call: the call is part of an answer, never run
        'Run this:\n```json\n{"name": "run_in_terminal", "arguments": {"command": "touch pwned"}}\n```',
        # prose after it
        '{"name": "create_file", "arguments": {"path": "pwned", "content": "x"}}\nDone!',
        # another language's fence
        '```python\n{"name": "create_file", "arguments": {"path": "pwned", "content": "x"}}\n```',
        # a call inside an answer's code, between two prose lines
        'Example:\n<tool_call>{"name": "create_file", "arguments": {"path": "pwned"}}</tool_call>\nok',
    ],
)
def test_a_call_inside_an_answer_is_not_run(ws: Path, fake_llm: FakeLLM, text: str) -> None:
    fake_llm.set_script([{"text": text}])
    proc = run(ws, fake_llm, "-p", "hi", "--yolo")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == text.strip()
    assert len(fake_llm.requests) == 1  # no tool round
    assert not (ws / "pwned").exists()


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ('```json\n{"name": "delete_everything", "arguments": {}}\n```', "delete_everything"),
        # a real tool, but not offered: disabled in the user's config
        (
            '<tool_call>{"name": "run_in_terminal", "arguments": {"command": "touch pwned"}}'
            "</tool_call>",
            "run_in_terminal",
        ),
        # a name that only looks like an offered one
        ('{"name": "read_file\\u200b", "arguments": {"path": "hello.py"}}', "read_file"),
        ('{"name": "READ_FILE", "arguments": {"path": "hello.py"}}', "READ_FILE"),
    ],
)
def test_a_call_to_a_tool_not_offered_is_refused(
    ws: Path, fake_llm: FakeLLM, text: str, name: str
) -> None:
    fake_llm.set_script([{"text": text}, {"text": "Sorry."}])
    config = '[tools]\ndisabled = ["run_in_terminal"]\n'
    proc = run(ws, fake_llm, "-p", "hi", "--yolo", user_config=config)
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "pwned").exists()
    assert "run_in_terminal" not in [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]
    assert "as text, but no tool named" in proc.stderr
    # The model is told, as the result of the call it tried; the turn goes on.
    [result] = tool_messages(fake_llm.requests[1])
    assert "There is no tool named" in result["content"]
    assert proc.stdout == "Sorry.\n"


def test_arguments_that_do_not_parse_get_a_notice(ws: Path, fake_llm: FakeLLM) -> None:
    text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "hello.py"\n</tool_call>'
    fake_llm.set_script([{"text": text}, {"text": "Let me fix that."}])
    proc = run(ws, fake_llm, "-p", "hi")
    assert proc.returncode == 0, proc.stderr
    assert "note: The model wrote a tool call to read_file as text" in proc.stderr
    [result] = tool_messages(fake_llm.requests[1])
    assert "not valid JSON" in result["content"]
    assert "hello-from-the-file-71" not in json.dumps(fake_llm.requests[1])


def test_a_call_written_as_text_meets_the_approvals(ws: Path, fake_llm: FakeLLM) -> None:
    text = (
        '```json\n{"name": "create_file", "arguments": {"path": "made.txt", "content": "x"}}\n```'
    )
    fake_llm.set_script([{"text": text}, {"text": "It was declined."}])
    proc = run(ws, fake_llm, "-p", "make it", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "made.txt").exists()
    [result] = tool_messages(fake_llm.requests[1])
    assert "declined" in result["content"].lower() or "denied" in result["content"].lower()


def test_text_tool_calls_off_keeps_the_text_as_the_answer(ws: Path, fake_llm: FakeLLM) -> None:
    text = '```json\n{"name": "read_file", "arguments": {"path": "hello.py"}}\n```'
    fake_llm.set_script([{"text": text}])
    proc = run(ws, fake_llm, "-p", "hi", user_config='[model]\ntext_tool_calls = "off"\n')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == text
    assert len(fake_llm.requests) == 1
