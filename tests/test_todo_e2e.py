"""The todo tool through `agent-tui -p`: shown on stderr and in stream-json, run without asking
in plan mode, saved in the session, restored by --continue, and the model reminded of open items
once at the start of the next turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake

PLAN = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Fix the bug\x1b[31m", "status": "in_progress"},
    {"content": "Run the tests", "status": "pending"},
]


def _todo_turn(items: list[dict[str, str]], call_id: str = "t1") -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "input": {"items": items}}]}


def _run(tmp_path: Path, fake: FakeLLM, *args: str) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_fake(ws, fake, *args, home=tmp_path, state=tmp_path / "state")


def _sent_text(request: dict[str, Any]) -> str:
    return json.dumps(request["messages"], ensure_ascii=False)


def test_text_mode_prints_the_list_on_stderr_and_plan_mode_does_not_ask(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([_todo_turn(PLAN), {"text": "Working on it."}])

    proc = _run(tmp_path, fake_llm, "-p", "fix it", "--mode", "plan", "--on-approval", "fail")

    assert proc.returncode == 0, proc.stderr
    assert (
        "todo: 1 of 3 done\n"
        "  [x] Read the code\n"
        "  [>] Fix the bug␛[31m\n"  # the escape is shown, never sent to the terminal
        "  [ ] Run the tests\n"
    ) in proc.stderr
    assert "\x1b" not in proc.stderr
    result = _sent_text(fake_llm.requests[1])
    assert "Todo list saved: 1 of 3 done; now: Fix the bug" in result


def test_stream_json_emits_a_plan_event(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([_todo_turn(PLAN), {"text": "ok"}])

    proc = _run(tmp_path, fake_llm, "-p", "fix it", "--output-format", "stream-json")

    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    plans = [line for line in lines if line["type"] == "plan"]
    assert plans == [{"type": "plan", "items": PLAN}]


def test_two_items_in_progress_reach_the_model_as_an_error(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    both = [{"content": "A", "status": "in_progress"}, {"content": "B", "status": "in_progress"}]
    fake_llm.set_script([_todo_turn(both), {"text": "ok"}])

    proc = _run(tmp_path, fake_llm, "-p", "go", "--output-format", "stream-json")

    assert proc.returncode == 0, proc.stderr
    assert '"type": "plan"' not in proc.stdout and '"type":"plan"' not in proc.stdout
    assert "one in progress at a time" in _sent_text(fake_llm.requests[1])


def test_continue_restores_the_list_and_reminds_the_model_once(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([_todo_turn(PLAN), {"text": "Paused."}])
    assert _run(tmp_path, fake_llm, "-p", "start").returncode == 0
    first_prompt = _sent_text(fake_llm.requests[0])

    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "l", "name": "list_dir", "input": {"path": "."}}]},
            {"text": "Next."},
        ]
    )
    proc = _run(tmp_path, fake_llm, "-p", "go on", "--continue")

    assert proc.returncode == 0, proc.stderr
    assert "<agent-tui-todo>" not in first_prompt
    new = fake_llm.requests[2:]
    note = "Your todo list still has 2 open item(s)"
    last_user = json.dumps(new[0]["messages"][-1], ensure_ascii=False)
    assert note in last_user and "[in_progress] Fix the bug" in last_user
    assert "Read the code" not in last_user  # done items are not repeated
    # Said with the prompt only: the round after the tool call adds nothing new.
    assert note not in json.dumps(new[1]["messages"][-1], ensure_ascii=False)
    assert _sent_text(new[1]).count(note) == 1


def test_a_finished_list_brings_no_reminder(tmp_path: Path, fake_llm: FakeLLM) -> None:
    done = [{"content": "All of it", "status": "completed"}]
    fake_llm.set_script([_todo_turn(done), {"text": "Done."}])
    assert _run(tmp_path, fake_llm, "-p", "start").returncode == 0

    fake_llm.set_script([{"text": "Hi."}])
    assert _run(tmp_path, fake_llm, "-p", "thanks", "--continue").returncode == 0

    assert "<agent-tui-todo>" not in _sent_text(fake_llm.requests[-1])
