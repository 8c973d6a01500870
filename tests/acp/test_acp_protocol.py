"""``agent-tui acp`` as a real process, driven by the ACP library's client side, against the fake
model server: a turn with a tool call, approvals answered both ways, a cancel, a load."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from acp import PROTOCOL_VERSION, text_block

from tests.acp.acp_client import DEADLINE_S, RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

CREATE = {"id": "c1", "name": "create_file", "input": {"path": "hello.txt", "content": "hi\n"}}


def _last_tool_result(fake: FakeLLM) -> str:
    """What the model was told about its last tool call (Anthropic format)."""
    for message in reversed(fake.requests[-1]["messages"]):
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                return content if isinstance(content, str) else json.dumps(content)
    raise AssertionError("no tool result sent")


async def test_initialize_says_what_the_agent_offers(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    async with acp_agent(ws, fake_llm, RecordingClient(), home=tmp_path) as conn:
        answer = await conn.initialize(protocol_version=PROTOCOL_VERSION)
    caps = answer.agent_capabilities
    assert answer.protocol_version == PROTOCOL_VERSION
    assert caps is not None and caps.load_session
    assert caps.prompt_capabilities is not None
    assert caps.prompt_capabilities.image and caps.prompt_capabilities.embedded_context
    assert caps.mcp_capabilities is not None and caps.mcp_capabilities.http
    assert [m.id for m in answer.auth_methods or []] == ["env-api-key"]
    assert answer.agent_info is not None and answer.agent_info.name == "agent-tui"


async def test_a_turn_with_an_approved_edit(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The edit is shown with its diff and location, asked about, run, and the answer streams."""
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"thinking": "ok", "text": "Created it."}])
    client = RecordingClient(answer="allow_once")
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("make it")])
        await client.wait_for("agent_message_chunk")
    assert reply.stop_reason == "end_turn"
    assert (ws / "hello.txt").read_text() == "hi\n"
    (start,) = client.of("tool_call")
    assert (start.tool_call_id, start.kind, start.status) == ("c1", "edit", "pending")
    assert start.locations[0].path == str(ws / "hello.txt")
    diff = start.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == (
        "diff",
        str(ws / "hello.txt"),
        None,
        "hi\n",
    )
    (asked, options), *_ = client.asked
    assert asked.tool_call_id == "c1" and asked.kind == "edit"
    assert {o.option_id: o.kind for o in options} == {
        "allow_once": "allow_once",
        "allow_always": "allow_always",
        "allow_session": "allow_always",
        "allow_workspace": "allow_always",
        "reject_once": "reject_once",
        "reject_always": "reject_always",
    }
    statuses = [u.status for u in client.of("tool_call_update")]
    assert statuses[-1] == "completed" and "in_progress" in statuses
    assert client.text() == "Created it."
    assert client.text("agent_thought_chunk") == "ok"


async def test_a_rejected_call_is_not_run_and_the_model_is_told(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"text": "Understood."}])
    client = RecordingClient(answer="reject_always")
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("make it")])
    assert reply.stop_reason == "end_turn"
    assert not (ws / "hello.txt").exists()
    assert client.of("tool_call_update")[-1].status == "failed"
    assert "not to be asked again" in _last_tool_result(fake_llm)


async def test_no_answer_is_a_denial(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """A permission request the client answers "cancelled" denies the call."""
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"text": "Understood."}])
    client = RecordingClient(answer="cancelled")
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make it")])
    assert not (ws / "hello.txt").exists()
    assert "no answer" in _last_tool_result(fake_llm)


async def test_cancel_stops_the_turn_and_the_session_goes_on(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """Cancelled while the approval is open: the prompt answers "cancelled", nothing is written,
    and the next prompt runs on a valid conversation."""
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"text": "Still here."}])
    client = RecordingClient(answer=None)
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        sid = session.session_id
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("make it")]))
        await asyncio.wait_for(client.asked_event.wait(), DEADLINE_S)
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, DEADLINE_S)
        assert reply.stop_reason == "cancelled"
        again = await conn.prompt(session_id=sid, prompt=[text_block("still there?")])
        await client.wait_for("agent_message_chunk")
    assert again.stop_reason == "end_turn"
    assert not (ws / "hello.txt").exists()
    assert client.text() == "Still here."
    # The model's second request is a valid conversation: every tool call has its result.
    last = fake_llm.requests[-1]["messages"]
    assert last[-1]["role"] == "user" and "still there?" in json.dumps(last[-1])
