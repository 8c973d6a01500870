"""ACP's ``additionalDirectories`` (issue 27 item 2) through the real ``agent-tui acp``: the agent
says it takes them, a session's extra root is read as the workspace is, and a protected
location (the home folder) is refused before the session opens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block

from tests.acp.acp_client import RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

TEXT = "acp-extra-root-4410"


async def test_a_session_reads_its_additional_directory(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "notes.txt").write_text(TEXT + "\n")
    read = {"id": "r1", "name": "read_file", "input": {"path": str(lib / "notes.txt")}}
    fake_llm.set_script([{"tool_calls": [read]}, {"text": "Read it."}])
    client = RecordingClient(answer="reject_once")  # a read there must not even ask
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        answer = await conn.initialize(protocol_version=PROTOCOL_VERSION)
        caps = answer.agent_capabilities
        assert caps is not None and caps.session_capabilities is not None
        assert caps.session_capabilities.additional_directories is not None
        session = await conn.new_session(
            cwd=str(ws), mcp_servers=[], additional_directories=[str(lib)]
        )
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("read")])
    assert reply.stop_reason == "end_turn"
    assert client.asked == []
    assert TEXT in json.dumps(fake_llm.requests[-1])


async def test_the_home_folder_is_refused(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    async with acp_agent(ws, fake_llm, RecordingClient(), home=tmp_path) as conn:
        with pytest.raises(RequestError) as refused:
            await conn.new_session(
                cwd=str(ws), mcp_servers=[], additional_directories=[str(tmp_path)]
            )
    assert "home folder" in json.dumps(refused.value.data)
