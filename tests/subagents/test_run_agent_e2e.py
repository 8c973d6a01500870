"""Custom agents end to end: `agent-tui -p` against the fake LLM server (issue 16 item 3).

The fake server serves the parent's and the child's requests from one script, in order, and
records each request, so the tests can check what the child was sent.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli

REVIEWER = """---
name: reviewer
description: Reviews code for bugs
tools: Read, Grep
model: inherit
---
You are the REVIEWER-PROMPT-7 agent. Report bugs only.
"""

WRITER = """---
name: writer
description: Writes files and runs commands
tools:
  - Write
  - Bash
---
You are the WRITER-PROMPT-9 agent.
"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    (path / ".agent" / "agents").mkdir(parents=True)
    (path / ".agent" / "agents" / "reviewer.md").write_text(REVIEWER)
    (path / ".claude" / "agents").mkdir(parents=True)
    (path / ".claude" / "agents" / "writer.md").write_text(WRITER)
    (path / "main.py").write_text("print('hi')\n")
    return path


def run(ws: Path, fake: FakeLLM, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "AGENT_TUI_STATE_DIR": str(ws.parent / "state"),
        "HOME": str(ws.parent / "home"),
        "ANTHROPIC_API_KEY": "sk-test",
    }
    flags = ["--provider", "anthropic", "--base-url", fake.url, "--model", "test-model"]
    return run_cli(ws, *flags, *args, "--output-format", "json", env=env, timeout=60)


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def tool_names(request: dict[str, Any]) -> list[str]:
    return sorted(t["name"] for t in request.get("tools", []))


def system_text(request: dict[str, Any]) -> str:
    system = request.get("system", "")
    return system if isinstance(system, str) else json.dumps(system)


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def delegate(agent: str, task: str) -> dict[str, Any]:
    call = {"id": "call_parent", "name": "run_agent", "input": {"agent": agent, "task": task}}
    return {"tool_calls": [call]}


def test_delegation_returns_the_childs_answer_as_the_tool_result(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            delegate("reviewer", "review main.py"),
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
            {"text": "CHILD-ANSWER: no bugs in main.py"},
            {"text": "The reviewer found no bugs."},
        ]
    )
    proc = run(ws, fake_llm, "-p", "review my code")
    assert proc.returncode == 0, proc.stderr
    assert result_of(proc)["result"] == "The reviewer found no bugs."
    parent, child, child2, parent2 = fake_llm.requests
    assert "run_agent" in tool_names(parent)
    assert "reviewer: Reviews code for bugs" in json.dumps(parent["tools"])
    assert "explore:" in json.dumps(parent["tools"])
    # The child: a fresh conversation with its prompt and only its tools (Read, Grep mapped).
    assert "REVIEWER-PROMPT-7" in system_text(child)
    assert "REVIEWER-PROMPT-7" not in system_text(parent)
    assert tool_names(child) == ["grep_search", "read_file"]
    assert len(child["messages"]) == 1  # a fresh conversation: the task alone
    assert "review main.py" in json.dumps(child["messages"])
    assert "review my code" not in json.dumps(child["messages"])
    assert "print('hi')" in json.dumps(tool_results(child2))
    results = tool_results(parent2)
    assert [r["tool_use_id"] for r in results] == ["call_parent"]
    assert "CHILD-ANSWER: no bugs in main.py" in json.dumps(results[0]["content"])


@pytest.mark.parametrize(
    "call",
    [
        {"name": "create_file", "input": {"path": "made.txt", "content": "x"}},
        {"name": "run_in_terminal", "input": {"command": "touch made.txt"}},
    ],
)
@pytest.mark.usefixtures("unsandboxed")  # commands ask
def test_a_nested_call_asks_for_approval_and_deny_refuses_it(
    ws: Path, fake_llm: FakeLLM, call: dict[str, Any]
) -> None:
    fake_llm.set_script(
        [
            delegate("writer", "make made.txt"),
            {"tool_calls": [{"id": "c1", **call}]},
            {"text": "CHILD: I was not allowed"},
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, "-p", "make the file", "--on-approval", "deny")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "made.txt").exists()
    child2 = fake_llm.requests[2]
    denied = tool_results(child2)
    assert denied and denied[0].get("is_error") is True
    assert "declined" in json.dumps(denied[0]["content"])
    assert "CHILD: I was not allowed" in json.dumps(tool_results(fake_llm.requests[3]))


def test_a_nested_call_can_be_allowed_and_runs(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script(
        [
            delegate("writer", "make made.txt"),
            {
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "create_file",
                        "input": {"path": "made.txt", "content": "x"},
                    }
                ]
            },
            {"text": "CHILD: made it"},
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, "-p", "make the file", "--allow-tool", "create_file")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "made.txt").read_text() == "x"


def test_sub_agents_are_not_offered_run_agent_and_cannot_call_it(
    ws: Path, fake_llm: FakeLLM
) -> None:
    (ws / ".agent" / "agents" / "all.md").write_text(
        "---\nname: all\ndescription: every tool\n---\nALL-PROMPT\n"
    )
    fake_llm.set_script(
        [
            delegate("all", "go deeper"),
            delegate("explore", "nested"),
            {"text": "CHILD: could not nest"},
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, "-p", "go")
    assert proc.returncode == 0, proc.stderr
    child = fake_llm.requests[1]
    assert "run_agent" not in tool_names(child)
    assert "create_file" in tool_names(child)  # no tools list: every tool but run_agent
    refused = tool_results(fake_llm.requests[2])
    assert refused[0].get("is_error") is True
    assert "no tool named 'run_agent'" in json.dumps(refused[0]["content"])


def test_at_explore_runs_the_builtin_read_only_agent(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "main.py prints hi"}])
    proc = run(ws, fake_llm, "-p", "@explore what does main.py print?")
    assert proc.returncode == 0, proc.stderr
    assert result_of(proc)["result"] == "main.py prints hi"
    (request,) = fake_llm.requests
    assert tool_names(request) == ["file_search", "grep_search", "list_dir", "read_file"]
    assert "You are `explore`" in system_text(request)
    assert "@explore" not in json.dumps(request["messages"])


def test_at_custom_agent_from_claude_folder(ws: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "@writer hello")
    assert proc.returncode == 0, proc.stderr
    (request,) = fake_llm.requests
    assert "WRITER-PROMPT-9" in system_text(request)
    assert "create_file" in tool_names(request) and "run_in_terminal" in tool_names(request)
    assert "run_agent" not in tool_names(request)


def test_agent_files_leading_outside_the_workspace_are_not_read(
    ws: Path, fake_llm: FakeLLM
) -> None:
    outside = ws.parent / "secret.md"
    outside.write_text("---\nname: leak\ndescription: SECRET-DESC\n---\nSECRET-BODY\n")
    (ws / ".agent" / "agents" / "leak.md").symlink_to(outside)
    linked_dir = ws.parent / "elsewhere"
    linked_dir.mkdir()
    (linked_dir / "leak2.md").write_text("---\nname: leak2\n---\nSECRET-BODY-2\n")
    (ws / ".agent" / "agents" / "sub").symlink_to(linked_dir)  # not *.md: ignored anyway
    fake_llm.set_script([{"text": "ok"}])
    proc = run(ws, fake_llm, "-p", "hello")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests)
    assert "SECRET" not in sent
    assert "leak" not in sent


def test_the_sub_agents_usage_counts_into_the_turn(ws: Path, fake_llm: FakeLLM) -> None:
    def used(turn: dict[str, Any], tokens: int) -> dict[str, Any]:
        return {**turn, "usage": {"input_tokens": tokens, "output_tokens": tokens // 10}}

    fake_llm.set_script(
        [
            used(delegate("explore", "look"), 100),
            used({"tool_calls": [{"id": "c1", "name": "list_dir", "input": {"path": "."}}]}, 1000),
            used({"text": "CHILD: one file"}, 1000),
            used({"text": "done"}, 100),
        ]
    )
    proc = run(ws, fake_llm, "-p", "look around")
    assert proc.returncode == 0, proc.stderr
    usage = result_of(proc)["usage"]
    assert usage["input_tokens"] == 2200
    assert usage["output_tokens"] == 220


def test_an_unknown_model_alias_is_reported_to_the_model(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agent" / "agents" / "big.md").write_text(
        "---\nname: big\ndescription: d\nmodel: no-such-alias\n---\nBIG\n"
    )
    fake_llm.set_script([delegate("big", "x"), {"text": "done"}])
    proc = run(ws, fake_llm, "-p", "go")
    assert proc.returncode == 0, proc.stderr
    (result,) = tool_results(fake_llm.requests[1])
    assert result.get("is_error") is True
    assert "'no-such-alias', which is not a [models.*] alias" in json.dumps(result["content"])


def test_stream_json_carries_the_sub_runs_events_and_the_session_skips_them(
    ws: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([delegate("explore", "look"), {"text": "CHILD-TEXT"}, {"text": "done"}])
    env = {"AGENT_TUI_STATE_DIR": str(ws.parent / "state"), "HOME": str(ws.parent / "home")}
    flags = ["--provider", "anthropic", "--base-url", fake_llm.url, "--model", "m"]
    proc = run_cli(
        ws,
        *flags,
        "-p",
        "go",
        "--output-format",
        "stream-json",
        env={**env, "ANTHROPIC_API_KEY": "k"},
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    nested = [line for line in lines if line["type"] == "subagent_event"]
    assert nested and {n["agent"] for n in nested} == {"explore"}
    assert {n["call_id"] for n in nested} == {"call_parent"}
    assert nested[-1]["inner"]["type"] == "turn_finished"
    assert nested[-1]["inner"]["text"] == "CHILD-TEXT"
    saved = "".join(p.read_text() for p in (ws.parent / "state").rglob("*.jsonl"))
    assert saved and "subagent_event" not in saved


def test_a_claude_code_file_with_model_sonnet_and_disallowed_tools_runs_unchanged(
    ws: Path, fake_llm: FakeLLM
) -> None:
    (ws / ".claude" / "agents" / "cc.md").write_text(
        "---\nname: cc\ndescription: d\nmodel: sonnet\ndisallowedTools: Bash, Write\n---\nCC\n"
    )
    fake_llm.set_script([delegate("cc", "x"), {"text": "CHILD"}, {"text": "done"}])
    proc = run(ws, fake_llm, "-p", "go")
    assert proc.returncode == 0, proc.stderr
    child = fake_llm.requests[1]
    assert child["model"] == "test-model"  # no [models.sonnet]: the parent's model
    names = tool_names(child)
    assert "read_file" in names
    assert not {"run_in_terminal", "create_file", "run_agent"} & set(names)


def test_undo_puts_back_the_sub_agents_edits_and_the_parents_after_it(
    ws: Path, fake_llm: FakeLLM
) -> None:
    def create(call_id: str, path: str) -> dict[str, Any]:
        call = {"id": call_id, "name": "create_file", "input": {"path": path, "content": "x\n"}}
        return {"tool_calls": [call]}

    fake_llm.set_script(
        [
            delegate("writer", "make a.txt"),
            create("c1", "a.txt"),
            {"text": "CHILD made a.txt"},
            create("p2", "b.txt"),  # the parent edits after the sub-run, in the same turn
            {"text": "done"},
        ]
    )
    proc = run(ws, fake_llm, "-p", "make files", "--allow-tool", "create_file")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "a.txt").exists() and (ws / "b.txt").exists()
    proc = run(ws, fake_llm, "-p", "/undo")
    assert proc.returncode == 0, proc.stderr
    assert not (ws / "a.txt").exists()
    assert not (ws / "b.txt").exists()


def test_on_approval_fail_in_a_sub_agent_stops_the_whole_run_with_exit_3(
    ws: Path, fake_llm: FakeLLM
) -> None:
    write = {"id": "c1", "name": "create_file", "input": {"path": "made.txt", "content": "x"}}
    fake_llm.set_script(
        [delegate("writer", "make it"), {"tool_calls": [write]}, {"text": "CHILD"}, {"text": "no"}]
    )
    proc = run(ws, fake_llm, "-p", "make it", "--on-approval", "fail")
    assert proc.returncode == 3, proc.stderr
    assert not (ws / "made.txt").exists()
    assert len(fake_llm.requests) == 2  # neither the child nor the parent went on


def test_an_agent_runs_on_the_model_its_alias_names(ws: Path, fake_llm: FakeLLM) -> None:
    (ws / ".agentrc").write_text(
        f'[models.small]\nprovider = "anthropic"\nname = "small-model"\nbase_url = "{fake_llm.url}"\n'
    )
    (ws / ".agent" / "agents" / "cheap.md").write_text(
        "---\nname: cheap\ndescription: d\nmodel: small\ntools: Read\n---\nCHEAP\n"
    )
    fake_llm.set_script([delegate("cheap", "x"), {"text": "CHILD"}, {"text": "done"}])
    proc = run(ws, fake_llm, "-p", "go", "--trust")
    assert proc.returncode == 0, proc.stderr
    parent, child, parent2 = fake_llm.requests
    assert parent["model"] == "test-model" and parent2["model"] == "test-model"
    assert child["model"] == "small-model"
