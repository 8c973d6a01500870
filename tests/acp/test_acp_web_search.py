"""The provider's own web search over ACP: a finished ``fetch`` tool call titled with the query and
listing the sources (web text made visible), and the answer's cited sources after its text."""

from __future__ import annotations

from pathlib import Path

from acp import text_block

from tests.acp.acp_client import RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

TURN = {
    "web_searches": [
        {
            "query": "python 3.13 release",
            "results": [{"title": "PEP 719\x1b[2J", "url": "https://peps.python.org/pep-0719/"}],
        }
    ],
    "text": "It came out in October 2024.",
    "citations": [{"url": "https://peps.python.org/pep-0719/", "title": "PEP 719"}],
}


async def test_search_is_a_tool_call_and_the_sources_follow_the_answer(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path)
    rc = tmp_path / "agentrc"
    rc.write_text('[web]\nsearch = "provider"\n')
    fake_llm.set_script([TURN])
    client = RecordingClient(answer=None)
    env = {"AGENT_TUI_USER_CONFIG": str(rc)}
    async with acp_agent(ws, fake_llm, client, home=tmp_path, env=env) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("when?")])

    assert reply.stop_reason == "end_turn"
    (call,) = client.of("tool_call")
    assert call.title == "Searched the web: python 3.13 release"
    assert call.kind == "fetch" and call.status == "completed"
    assert call.content[0].content.text == "[1] PEP 719␛[2J <https://peps.python.org/pep-0719/>"
    assert client.text() == (
        "It came out in October 2024.\n\nSources:\n[1] PEP 719 <https://peps.python.org/pep-0719/>\n"
    )
    assert fake_llm.requests[0]["tools"][0]["type"] == "web_search_20250305"
