"""The todo tool over ACP: each list the model sends is a ``plan`` session update (the whole list,
control characters made visible), asked about never, and sent again when the session is loaded."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.acp_client import RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

FIRST = [
    {"content": "Read\x1b[2J the code", "status": "in_progress"},
    {"content": "Fix it", "status": "pending"},
]
SECOND = [
    {"content": "Read\x1b[2J the code", "status": "completed"},
    {"content": "Fix it", "status": "in_progress"},
]


def _todo(call_id: str, items: list[dict[str, str]]) -> dict[str, object]:
    return {"tool_calls": [{"id": call_id, "name": "todo", "input": {"items": items}}]}


def _entries(update: object) -> list[tuple[str, str, str]]:
    return [(e.content, e.status, e.priority) for e in update.entries]  # type: ignore[attr-defined]


async def test_each_list_is_a_plan_update_and_load_sends_it_again(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([_todo("t1", FIRST), _todo("t2", SECOND), {"text": "On it."}])
    client = RecordingClient(answer=None)  # an ask would hang the turn: none may come
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("fix")])
        await client.wait_for("plan", 2)
    assert reply.stop_reason == "end_turn" and client.asked == []
    first, second = client.of("plan")
    assert _entries(first) == [
        ("Read␛[2J the code", "in_progress", "medium"),
        ("Fix it", "pending", "medium"),
    ]
    assert _entries(second) == [
        ("Read␛[2J the code", "completed", "medium"),
        ("Fix it", "in_progress", "medium"),
    ]

    again = RecordingClient()
    async with acp_agent(ws, fake_llm, again, home=tmp_path) as conn:
        await conn.load_session(cwd=str(ws), session_id=session.session_id, mcp_servers=[])
        await again.wait_for("plan", 2)
    assert [_entries(u) for u in again.of("plan")] == [_entries(first), _entries(second)]
