"""The agent loop end to end with the scripted provider, real tools and real files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui import events as ev
from agent_tui.agent.loop import CANCELLED_RESULT, Agent
from agent_tui.approvals.types import Decision
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.conversation import ToolResultBlock, ToolUseBlock
from agent_tui.errors import ApprovalRequired
from agent_tui.providers.scripted import ScriptedProvider
from agent_tui.tools.base import BaseTool, Manifest, Prepared, ToolContext, ToolResult
from tests.helpers import new_workspace


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def make_agent(workspace: Path, turns: list[dict[str, Any]], **cli: Any) -> Agent:
    script = workspace.parent / f"script-{workspace.name}.json"
    script.write_text(json.dumps(turns))
    layer = {"model": {"provider": "scripted", "script": str(script)}, **cli}
    config = load_config(workspace, cli=layer, env={}, user_file=workspace / "no-user-rc")
    return build_agent(config)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return new_workspace(tmp_path, {"notes.txt": "alpha\nbeta\n"})


async def collect(agent: Agent, text: str, answer: Any = None) -> list[ev.Event]:
    """Run a turn; ``answer(event)`` resolves questions (approvals, round limits)."""
    seen: list[ev.Event] = []
    async for event in agent.run(text):
        seen.append(event)
        if isinstance(event, ev.ApprovalRequested | ev.RoundLimitHit):
            answer(event)
    return seen


def results(agent: Agent) -> list[ToolResultBlock]:
    return [
        b for m in agent.conversation.messages for b in m.content if isinstance(b, ToolResultBlock)
    ]


def assert_every_call_answered(agent: Agent) -> None:
    uses = [
        b.id for m in agent.conversation.messages for b in m.content if isinstance(b, ToolUseBlock)
    ]
    assert sorted(uses) == sorted(r.tool_use_id for r in results(agent))


async def test_text_turn_streams_and_finishes(workspace: Path) -> None:
    agent = make_agent(workspace, [{"text": "Hello there, friend."}])
    events = await collect(agent, "hi")
    deltas = "".join(e.text for e in events if isinstance(e, ev.TextDelta))
    assert deltas == "Hello there, friend."
    assert len([e for e in events if isinstance(e, ev.TextDelta)]) > 1  # streamed in pieces
    finished = events[-1]
    assert isinstance(finished, ev.TurnFinished) and finished.text == "Hello there, friend."
    assert [m.role for m in agent.conversation.messages] == ["user", "assistant"]


async def test_read_file_result_reaches_the_conversation(workspace: Path) -> None:
    agent = make_agent(
        workspace,
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "notes.txt"}}]},
            {"text": "It says alpha and beta."},
        ],
    )
    events = await collect(agent, "read notes")
    (result,) = results(agent)
    assert "alpha" in result.content and "beta" in result.content and not result.is_error
    decided = next(e for e in events if isinstance(e, ev.ToolCallDecided))
    assert decided.allowed and decided.step == "read_only"
    assert events[-1].text == "It says alpha and beta."  # type: ignore[attr-defined]


async def test_parallel_calls_are_all_answered_in_call_order(workspace: Path) -> None:
    (workspace / "b.txt").write_text("bee\n")
    agent = make_agent(
        workspace,
        [
            {
                "tool_calls": [
                    {"id": "a", "name": "read_file", "input": {"path": "notes.txt"}},
                    {"id": "b", "name": "read_file", "input": {"path": "b.txt"}},
                ]
            },
            {"text": "ok"},
        ],
    )
    await collect(agent, "read both")
    got = results(agent)
    assert [r.tool_use_id for r in got] == ["a", "b"]
    assert "bee" in got[1].content


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ({"id": "x", "name": "no_such_tool", "input": {}}, "no tool named 'no_such_tool'"),
        (
            {"id": "x", "name": "read_file", "input": {"start_line": 2}},
            "Invalid input for read_file",
        ),
        ({"id": "x", "name": "read_file", "input": {"path": 42}}, "Invalid input for read_file"),
        (
            {"id": "x", "name": "read_file", "input": {"path": "../outside.txt"}},
            "outside the workspace",
        ),
    ],
)
async def test_bad_calls_become_error_results_and_the_turn_goes_on(
    workspace: Path, call: dict[str, Any], expected: str
) -> None:
    agent = make_agent(workspace, [{"tool_calls": [call]}, {"text": "recovered"}])
    events = await collect(agent, "go")
    (result,) = results(agent)
    assert result.is_error and expected in result.content
    assert events[-1].text == "recovered"  # type: ignore[attr-defined]


async def test_arguments_double_encoded_as_a_json_string_are_repaired(workspace: Path) -> None:
    from agent_tui.agent.assemble import parse_arguments

    value, error = parse_arguments(json.dumps(json.dumps({"path": "notes.txt"})))
    assert value == {"path": "notes.txt"} and error == ""
    value, error = parse_arguments('{"path": "notes.txt"')
    assert value is None and "not valid JSON" in error
    value, error = parse_arguments("[1, 2]")
    assert value is None and "JSON object" in error


async def test_denied_edit_does_not_run_and_the_model_gets_the_reason(workspace: Path) -> None:
    agent = make_agent(
        workspace,
        [
            {
                "tool_calls": [
                    {"id": "w", "name": "create_file", "input": {"path": "new.txt", "content": "x"}}
                ]
            },
            {"text": "Understood, I will not create it."},
        ],
    )
    events = await collect(
        agent, "make a file", lambda e: e.decision.set_result(Decision(False, reason="not now"))
    )
    assert not (workspace / "new.txt").exists()
    (result,) = results(agent)
    assert result.is_error and "declined" in result.content and "not now" in result.content
    assert events[-1].text == "Understood, I will not create it."  # type: ignore[attr-defined]


async def test_edited_input_is_validated_again_before_it_runs(workspace: Path) -> None:
    call = {"id": "w", "name": "create_file", "input": {"path": "a.txt", "content": "model"}}
    agent = make_agent(
        workspace,
        [
            {"tool_calls": [call]},
            {"text": "ok"},
            {"tool_calls": [{**call, "id": "w2"}]},
            {"text": "ok"},
        ],
    )
    await collect(
        agent,
        "one",
        lambda e: e.decision.set_result(
            Decision(True, edited_input={"path": "b.txt", "content": "user"})
        ),
    )
    assert not (workspace / "a.txt").exists()
    assert (workspace / "b.txt").read_text() == "user"
    # The history shows the model the input that ran, not the one it asked for.
    (use,) = [b for b in agent.conversation.messages[1].content if isinstance(b, ToolUseBlock)]
    assert use.input == {"path": "b.txt", "content": "user"}
    await collect(
        agent, "two", lambda e: e.decision.set_result(Decision(True, edited_input={"path": 7}))
    )
    assert "edited input was rejected" in results(agent)[-1].content


async def test_approval_required_ends_the_turn_with_exit_3_and_a_valid_conversation(
    workspace: Path,
) -> None:
    agent = make_agent(
        workspace,
        [
            {
                "tool_calls": [
                    {"id": "w", "name": "create_file", "input": {"path": "n.txt", "content": "x"}}
                ]
            }
        ],
    )
    events = await collect(
        agent, "go", lambda e: e.decision.set_exception(ApprovalRequired("stop"))
    )
    error = next(e for e in events if isinstance(e, ev.ErrorEvent))
    assert error.exit_code == 3
    assert_every_call_answered(agent)


async def test_round_limit_asks_and_stopping_exits_4(workspace: Path) -> None:
    loop_call = {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "notes.txt"}}]}
    turns = [
        {**loop_call, "tool_calls": [{**loop_call["tool_calls"][0], "id": f"r{i}"}]}
        for i in range(5)
    ]
    agent = make_agent(workspace, turns, agent={"max_rounds": 2})
    events = await collect(agent, "loop", lambda e: e.proceed.set_result(False))
    assert any(isinstance(e, ev.RoundLimitHit) and e.rounds == 2 for e in events)
    error = next(e for e in events if isinstance(e, ev.ErrorEvent))
    assert error.exit_code == 4 and "round limit" in error.message
    assert_every_call_answered(agent)


async def test_cancel_while_waiting_for_approval_leaves_every_call_answered(
    workspace: Path,
) -> None:
    agent = make_agent(
        workspace,
        [
            {
                "tool_calls": [
                    {"id": "a", "name": "read_file", "input": {"path": "notes.txt"}},
                    {"id": "b", "name": "create_file", "input": {"path": "n.txt", "content": "x"}},
                ]
            }
        ],
    )
    asked = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run("go"):
            if isinstance(event, ev.ApprovalRequested):
                asked.set()

    task = asyncio.create_task(consume())
    await asked.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_every_call_answered(agent)
    assert any(r.content == CANCELLED_RESULT for r in results(agent))
    assert not (workspace / "n.txt").exists()


class _CrashingTool(BaseTool):
    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared("Crashing", "Crashed")

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raise RuntimeError("boom")


async def test_a_crashing_tool_is_reported_to_the_model_and_the_turn_goes_on(
    workspace: Path,
) -> None:
    agent = make_agent(
        workspace,
        [{"tool_calls": [{"id": "c", "name": "crash_now", "input": {}}]}, {"text": "saw it"}],
    )
    manifest = Manifest(
        "crash_now",
        "Crash",
        "crash_now",
        "",
        "crashes",
        {"type": "object", "properties": {}},
        "read",
    )
    agent.deps.tools.register(manifest, _CrashingTool)
    events = await collect(agent, "crash")
    (result,) = results(agent)
    assert result.is_error and "RuntimeError: boom" in result.content
    assert events[-1].text == "saw it"  # type: ignore[attr-defined]


async def test_continuing_past_the_round_limit_does_not_raise_it_for_later_turns(
    workspace: Path,
) -> None:
    read = {"name": "read_file", "input": {"path": "notes.txt"}}
    turns = [{"tool_calls": [{**read, "id": f"a{i}"}]} for i in range(3)] + [{"text": "one"}]
    turns += [{"tool_calls": [{**read, "id": f"b{i}"}]} for i in range(3)]
    agent = make_agent(workspace, turns, agent={"max_rounds": 2})
    first = await collect(agent, "go", lambda e: e.proceed.set_result(True))
    assert first[-1].text == "one"  # type: ignore[attr-defined]
    second = await collect(agent, "again", lambda e: e.proceed.set_result(False))
    limit = next(e for e in second if isinstance(e, ev.RoundLimitHit))
    assert limit.rounds == 2  # asked after 2 rounds again, not after 4


async def test_a_tool_re_registered_with_a_new_schema_is_validated_against_the_new_one(
    workspace: Path,
) -> None:
    from agent_tui.agent.execute import VALIDATORS

    def manifest(required: list[str]) -> Manifest:
        schema = {"type": "object", "properties": {"a": {}, "b": {}}, "required": required}
        return Manifest("mcp_s_t", "T", "t", "", "t", schema, "read")

    assert VALIDATORS.errors(manifest(["a"]), {"a": 1}) == []
    # The server re-lists the tool (list_changed) and now requires "b".
    assert "'b' is a required property" in VALIDATORS.errors(manifest(["b"]), {"a": 1})[0]


async def test_switching_model_closes_the_old_provider_and_mcp_sampling_follows(
    workspace: Path, tmp_path: Path
) -> None:
    from agent_tui.config import model_config
    from agent_tui.mcp.manager import McpManager

    agent = make_agent(workspace, [{"text": "old"}])
    agent.deps.mcp = McpManager({}, tools=agent.deps.tools, workspace=workspace)
    old = agent.deps.provider
    closed: list[bool] = []
    old_close = old.aclose

    async def record_close() -> None:
        closed.append(True)
        await old_close()

    old.aclose = record_close  # type: ignore[method-assign]
    script = tmp_path / "new.json"
    script.write_text(json.dumps([{"text": "sampled by the new model"}]))
    new_model = model_config({"provider": "scripted", "name": "new", "script": str(script)}, {})
    await agent.set_model(new_model, ScriptedProvider.from_config(new_model))
    assert closed == [True]
    hooks = agent.deps.mcp.hooks
    assert hooks.model_name == "new"
    assert await hooks.complete([{"role": "user", "content": "hi"}], "", 50) == (  # type: ignore[misc]
        "sampled by the new model"
    )


async def test_model_settings_reach_the_request(workspace: Path) -> None:
    script = workspace.parent / "script-settings.json"
    script.write_text(json.dumps([{"text": "ok"}]))
    model = {
        "provider": "scripted",
        "script": str(script),
        "max_tokens": 1234,
        "temperature": 0.3,
        "thinking_budget": 2048,
        "reasoning_effort": "low",
    }
    config = load_config(workspace, cli={"model": model}, env={}, user_file=workspace / "none")
    agent = build_agent(config)
    await collect(agent, "hi")
    provider = agent.deps.provider
    assert isinstance(provider, ScriptedProvider)
    sent = provider.requests[0]
    assert (sent.max_tokens, sent.temperature) == (1234, 0.3)
    assert (sent.thinking_budget, sent.reasoning_effort) == (2048, "low")
