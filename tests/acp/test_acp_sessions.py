"""``agent-tui acp`` sessions: load replays a saved session, ACP sessions are in ``--resume``,
modes, slash commands, the untrusted folder's note, and what a prompt may carry."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from acp import (
    embedded_text_resource,
    image_block,
    resource_block,
    resource_link_block,
    text_block,
)

from tests.acp.acp_client import RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_fake

READ = {"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}
# The smallest PNG: 1x1, one grey pixel.
PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010800000000"
        "3a7e9b550000000a49444154789c63600000000200015de2f2fa0000000049454e44ae426082"
    )
).decode()


async def test_load_replays_the_session_and_it_is_in_resume(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {"notes.txt": "alpha\n"})
    fake_llm.set_script([{"tool_calls": [READ]}, {"text": "It says alpha."}])
    first = RecordingClient()
    async with acp_agent(ws, fake_llm, first, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("read notes")])
    sid = session.session_id
    # The session is where --resume looks (-p --resume ID continues it).
    fake_llm.set_script([{"text": "resumed"}])
    state = tmp_path / "state"
    done = run_on_fake(ws, fake_llm, "-p", "again", "--resume", sid, home=tmp_path, state=state)
    assert done.returncode == 0, done.stderr
    assert "read notes" in json.dumps(fake_llm.requests[-1]["messages"])

    again = RecordingClient()
    async with acp_agent(ws, fake_llm, again, home=tmp_path) as conn:
        loaded = await conn.load_session(cwd=str(ws), session_id=sid, mcp_servers=[])
        assert loaded is not None and loaded.modes is not None
    users = [u.content.text for u in again.of("user_message_chunk")]
    assert users == ["read notes", "again"]
    assert "It says alpha." in again.text() and "resumed" in again.text()
    (call,) = again.of("tool_call")
    assert (call.tool_call_id, call.kind) == ("r1", "read")
    assert again.of("tool_call_update")[-1].status == "completed"


async def test_load_of_an_unknown_session_is_an_error(tmp_path: Path, fake_llm: FakeLLM) -> None:
    from acp import RequestError

    ws = new_workspace(tmp_path)
    async with acp_agent(ws, fake_llm, RecordingClient(), home=tmp_path) as conn:
        try:
            await conn.load_session(cwd=str(ws), session_id="nope", mcp_servers=[])
        except RequestError as exc:
            assert exc.code == -32002  # resource not found
        else:
            raise AssertionError("loading an unknown session succeeded")


async def test_modes_and_commands(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """Modes are offered and switched; plan mode then refuses the edit without asking."""
    ws = new_workspace(tmp_path)
    create = {"id": "c", "name": "create_file", "input": {"path": "x.txt", "content": "x"}}
    fake_llm.set_script([{"tool_calls": [create]}, {"text": "Planned."}])
    client = RecordingClient()
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        modes = session.modes
        assert modes is not None and modes.current_mode_id == "ask"
        assert [m.id for m in modes.available_modes] == ["ask", "accept-edits", "plan"]
        await client.wait_for("available_commands_update")
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        await client.wait_for("current_mode_update")
        await conn.prompt(session_id=session.session_id, prompt=[text_block("edit")])
    assert client.of("current_mode_update")[-1].current_mode_id == "plan"
    names = {c.name for c in client.of("available_commands_update")[0].available_commands}
    assert {"help", "compact", "approvals"} <= names
    assert client.asked == [] and not (ws / "x.txt").exists()


async def test_an_untrusted_folders_settings_are_ignored_and_said(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {".agentrc": "[mcp]\nconnect_timeout_s = 5\n"})
    client = RecordingClient()
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        await conn.new_session(cwd=str(ws), mcp_servers=[])
        await client.wait_for("agent_message_chunk")
    assert "not trusted" in client.text()


async def test_a_prompt_carries_links_selections_and_images(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {"src/app.py": "print('linked file')\n"})
    fake_llm.set_script([{"text": "Seen."}])
    client = RecordingClient()
    link = resource_link_block("app.py", (ws / "src/app.py").as_uri())
    selection = resource_block(embedded_text_resource("file:///elsewhere/sel.py", "x = 'selected'"))
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        blocks = [text_block("look"), link, selection, image_block(PNG, "image/png")]
        reply = await conn.prompt(session_id=session.session_id, prompt=blocks)
    assert reply.stop_reason == "end_turn"
    sent = json.dumps(fake_llm.requests[-1]["messages"][-1])
    assert "linked file" in sent  # the #file: reference was read
    assert "selected" in sent and "file:///elsewhere/sel.py" in sent
    assert '"type": "image"' in sent


async def test_the_clients_mcp_servers_start_for_the_session(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """A stdio server passed in session/new is started; its tools are offered to the model."""
    import sys

    from acp.schema import McpServerStdio

    ws = new_workspace(tmp_path)
    # The request waits for the server as long as it takes to start (its imports took over the
    # default 5 s under load in a run of the suite).
    (tmp_path / ".agentrc").write_text("[mcp]\nstartup_wait_s = 60\n", encoding="utf-8")
    fake_llm.set_script([{"text": "ok"}])
    server = McpServerStdio(
        name="clock", command=sys.executable, args=["-m", "mcp_server_time"], env=[]
    )
    async with acp_agent(ws, fake_llm, RecordingClient(), home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[server])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("time?")])
    offered = [tool["name"] for tool in fake_llm.requests[-1]["tools"]]
    assert any("clock" in name and "time" in name for name in offered), offered


async def test_list_gives_the_folders_sessions_newest_first_titled_by_their_first_prompt(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    fake_llm.set_script([{"text": "one"}, {"text": "two"}, {"text": "three"}])
    client = RecordingClient()
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        ids = []
        for cwd, text in ((ws, "first \x1b[31mtask"), (ws, "second task"), (other, "elsewhere")):
            session = await conn.new_session(cwd=str(cwd), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block(text)])
            ids.append(session.session_id)
        here = await conn.list_sessions(cwd=str(ws))
        everywhere = await conn.list_sessions()
    assert [(s.session_id, s.title) for s in here.sessions] == [
        (ids[1], "second task"),
        (ids[0], "first ␛[31mtask"),  # a control character is shown, not sent raw
    ]
    assert {s.cwd for s in here.sessions} == {str(ws.resolve())}
    assert all(s.updated_at and s.updated_at.endswith("Z") for s in here.sessions)
    assert [s.session_id for s in everywhere.sessions] == [ids[2], ids[1], ids[0]]
    assert here.next_cursor is None


async def test_a_loaded_session_goes_on_from_what_it_spent(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """``session/load``: ``/cost`` counts the tokens of the runs before it (issue 27)."""
    ws = new_workspace(tmp_path, {"notes.txt": "alpha\n"})
    usage = {"input_tokens": 12_345, "output_tokens": 678}
    fake_llm.set_script([{"text": "spent some", "usage": usage}])
    async with acp_agent(ws, fake_llm, RecordingClient(), home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("spend")])
    again = RecordingClient()
    async with acp_agent(ws, fake_llm, again, home=tmp_path) as conn:
        await conn.load_session(cwd=str(ws), session_id=session.session_id, mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("/cost")])
    assert "| session | 12,345 | 678 | 0 | 0 |" in again.text()
    assert len(fake_llm.requests) == 1
