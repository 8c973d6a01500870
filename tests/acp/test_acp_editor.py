"""``agent-tui acp`` with a client that is an editor (``fs`` and ``terminal`` offered): the model
reads the editor's unsaved buffer, its edits land in the buffer and not on disk, its commands run
in the editor's terminal; a path outside the workspace is refused before any ``fs/*`` request;
an editor that refuses a write fails the call, and the turn goes on."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from acp import text_block

from tests.acp.acp_client import DEADLINE_S, acp_agent
from tests.acp.editor_client import EDITOR, EditorClient
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

ON_DISK = "saved text\n"
IN_EDITOR = "unsaved text\n"


def _tool_results(fake: FakeLLM) -> list[str]:
    """What the model was told about its tool calls, in order (Anthropic format)."""
    told = []
    for message in fake.requests[-1]["messages"]:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("type") == "tool_result":
                content = block["content"]
                told.append(content if isinstance(content, str) else json.dumps(content))
    return told


def _editor_workspace(tmp_path: Path) -> tuple[Path, EditorClient]:
    ws = new_workspace(tmp_path)
    (ws / "notes.txt").write_text(ON_DISK)
    client = EditorClient(answer="allow_once", buffers={str(ws / "notes.txt"): IN_EDITOR})
    return ws, client


async def _turn(ws: Path, fake: FakeLLM, client: EditorClient, home: Path, **kw: object) -> str:
    async with acp_agent(ws, fake, client, home=home, capabilities=EDITOR, **kw) as conn:  # type: ignore[arg-type]
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        await client.wait_for("agent_message_chunk")
    return reply.stop_reason


async def test_the_model_reads_the_editors_buffer(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws, client = _editor_workspace(tmp_path)
    read = {"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}
    fake_llm.set_script([{"tool_calls": [read]}, {"text": "Read it."}])
    assert await _turn(ws, fake_llm, client, tmp_path) == "end_turn"
    (told,) = _tool_results(fake_llm)
    assert "unsaved text" in told and "saved text" not in told.replace("unsaved text", "")
    assert ("fs/read_text_file", str(ws / "notes.txt")) in client.requests


EDITS = {
    "replace_string_in_file": {
        "path": "notes.txt",
        "old_string": "unsaved text",
        "new_string": "edited text",
    },
    "apply_patch": {
        "input": "*** Begin Patch\n*** Update File: notes.txt\n@@\n-unsaved text\n+edited text\n"
        "*** End Patch\n"
    },
}


@pytest.mark.parametrize("tool", sorted(EDITS))
async def test_an_edit_lands_in_the_buffer_not_on_disk(
    tmp_path: Path, fake_llm: FakeLLM, tool: str
) -> None:
    """The edit is planned on the buffer's text (the disk has no "unsaved text") and written
    into the buffer; the file on disk is left as the user saved it."""
    ws, client = _editor_workspace(tmp_path)
    edit = {"id": "e1", "name": tool, "input": EDITS[tool]}
    fake_llm.set_script([{"tool_calls": [edit]}, {"text": "Edited."}])
    assert await _turn(ws, fake_llm, client, tmp_path) == "end_turn"
    assert client.buffers[str(ws / "notes.txt")] == "edited text\n"
    assert (ws / "notes.txt").read_text() == ON_DISK
    assert client.of("tool_call_update")[-1].status == "completed"
    assert client.asked, "the edit was asked about as without an editor"


async def test_create_file_writes_a_new_file_through_the_editor(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, client = _editor_workspace(tmp_path)
    create = {"id": "c1", "name": "create_file", "input": {"path": "sub/new.txt", "content": "x\n"}}
    fake_llm.set_script([{"tool_calls": [create]}, {"text": "Made."}])
    await _turn(ws, fake_llm, client, tmp_path)
    assert client.buffers[str(ws / "sub" / "new.txt")] == "x\n"
    assert not (ws / "sub" / "new.txt").exists()


async def test_a_path_outside_the_workspace_is_never_asked_of_the_editor(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, client = _editor_workspace(tmp_path)
    (tmp_path / "secret.txt").write_text("secret\n")
    client.buffers[str(tmp_path / "secret.txt")] = "secret buffer\n"
    calls = [
        {"id": "r1", "name": "read_file", "input": {"path": "../secret.txt"}},
        {"id": "r2", "name": "read_file", "input": {"path": str(tmp_path / "secret.txt")}},
        {
            "id": "e1",
            "name": "replace_string_in_file",
            "input": {"path": "../secret.txt", "old_string": "secret", "new_string": "x"},
        },
    ]
    fake_llm.set_script([{"tool_calls": calls}, {"text": "Refused."}])
    assert await _turn(ws, fake_llm, client, tmp_path) == "end_turn"
    told = _tool_results(fake_llm)
    assert len(told) == 3 and all("outside the workspace" in t for t in told), told
    assert "secret" not in "".join(told).replace("secret.txt", "")
    assert not [r for r in client.requests if r[0].startswith("fs/")]
    assert (tmp_path / "secret.txt").read_text() == "secret\n"


async def test_an_editor_that_refuses_a_write_fails_the_call_and_the_turn_goes_on(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws, client = _editor_workspace(tmp_path)
    client.refuse_writes = "buffer is read-only"
    edit = {"id": "e1", "name": "replace_string_in_file", "input": EDITS["replace_string_in_file"]}
    fake_llm.set_script([{"tool_calls": [edit]}, {"text": "It could not be edited."}])
    assert await _turn(ws, fake_llm, client, tmp_path) == "end_turn"
    (told,) = _tool_results(fake_llm)
    assert "The editor refused to write notes.txt" in told and "buffer is read-only" in told
    assert client.of("tool_call_update")[-1].status == "failed"
    assert client.text() == "It could not be edited."
    assert client.buffers[str(ws / "notes.txt")] == IN_EDITOR
    assert (ws / "notes.txt").read_text() == ON_DISK


async def test_a_command_runs_in_the_editors_terminal(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """With the sandbox off, the command goes through terminal/*, shown embedded in the call;
    its output and exit code reach the model, and a `cd` is kept for the next command."""
    ws, client = _editor_workspace(tmp_path)
    (ws / "sub").mkdir()
    run = {
        "id": "t1",
        "name": "run_in_terminal",
        "input": {"command": "echo from-$((6*7)); cd sub"},
    }
    again = {"id": "t2", "name": "run_in_terminal", "input": {"command": "pwd; exit 3"}}
    fake_llm.set_script([{"tool_calls": [run]}, {"tool_calls": [again]}, {"text": "Ran."}])
    env = {"AGENT_TUI_SANDBOX": "off"}
    assert await _turn(ws, fake_llm, client, tmp_path, env=env) == "end_turn"
    first, second = _tool_results(fake_llm)
    assert "Exit code: 0" in first and "from-42" in first
    assert "Exit code: 3" in second and str(ws / "sub") in second
    assert client.methods().count("terminal/create") == 2
    for step in ("terminal/wait_for_exit", "terminal/output", "terminal/release"):
        assert client.methods().count(step) == 2, step
    shown = [
        c.terminal_id
        for u in client.of("tool_call_update")
        for c in u.content or []
        if c.type == "terminal"
    ]
    assert set(shown) == {"term-1", "term-2"}


async def test_with_the_sandbox_on_commands_run_here(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The sandbox cannot reach the editor's terminal, so a sandboxed command never goes there."""
    ws, client = _editor_workspace(tmp_path)
    run = {"id": "t1", "name": "run_in_terminal", "input": {"command": "echo here"}}
    fake_llm.set_script([{"tool_calls": [run]}, {"text": "Ran."}])
    env = {"AGENT_TUI_SANDBOX": "workspace-write"}
    await _turn(ws, fake_llm, client, tmp_path, env=env)
    (told,) = _tool_results(fake_llm)
    if "sandbox" in told.lower() and "cannot" in told.lower():
        pytest.skip("the sandbox cannot run on this machine")
    assert "here" in told
    assert not [r for r in client.requests if r[0].startswith("terminal/")]


async def test_undo_puts_the_buffer_back_through_the_editor(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The snapshot is the buffer the model edited, and /undo writes it back there (the disk
    was never touched); a buffer the user changed after the edit is left unless /undo force."""
    ws, client = _editor_workspace(tmp_path)
    path = str(ws / "notes.txt")
    edit = {"id": "e1", "name": "replace_string_in_file", "input": EDITS["replace_string_in_file"]}
    fake_llm.set_script([{"tool_calls": [edit]}, {"text": "Edited."}])
    async with acp_agent(ws, fake_llm, client, home=tmp_path, capabilities=EDITOR) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("edit it")])
        assert client.buffers[path] == "edited text\n"
        client.buffers[path] = "typed by the user\n"
        await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
        assert client.buffers[path] == "typed by the user\n"
        assert "Left as they are" in client.text()
        await conn.prompt(session_id=sid, prompt=[text_block("/undo force")])
    assert client.buffers[path] == IN_EDITOR
    assert (ws / "notes.txt").read_text() == ON_DISK


async def test_a_file_reference_attaches_the_buffer(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """#file: and @path put the file's text in the prompt: the editor's, unsaved changes too."""
    ws, client = _editor_workspace(tmp_path)
    fake_llm.set_script([{"text": "Seen."}])
    async with acp_agent(ws, fake_llm, client, home=tmp_path, capabilities=EDITOR) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        await conn.prompt(session_id=sid, prompt=[text_block("look at #file:notes.txt")])
    sent = json.dumps(fake_llm.requests[-1]["messages"])
    assert "unsaved text" in sent and "saved text\\n" not in sent.replace("unsaved text", "")
    assert ("fs/read_text_file", str(ws / "notes.txt")) in client.requests


async def test_a_cancelled_turn_releases_the_editors_terminal(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """Cancel while the command runs in the editor's terminal: it is released (which kills it),
    and the prompt answers "cancelled"."""
    ws, client = _editor_workspace(tmp_path)
    run = {"id": "t1", "name": "run_in_terminal", "input": {"command": "sleep 60"}}
    fake_llm.set_script([{"tool_calls": [run]}, {"text": "Stopped."}])
    env = {"AGENT_TUI_SANDBOX": "off"}
    async with acp_agent(ws, fake_llm, client, home=tmp_path, capabilities=EDITOR, env=env) as conn:
        sid = (await conn.new_session(cwd=str(ws), mcp_servers=[])).session_id
        turn = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        deadline = asyncio.get_running_loop().time() + DEADLINE_S
        while "terminal/wait_for_exit" not in client.methods():
            assert asyncio.get_running_loop().time() < deadline, client.requests
            await asyncio.sleep(0.01)
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, DEADLINE_S)
        while "terminal/release" not in client.methods():
            assert asyncio.get_running_loop().time() < deadline, client.requests
            await asyncio.sleep(0.01)
    assert reply.stop_reason == "cancelled"
    assert client.runs["term-1"].process.returncode is not None


async def test_a_file_in_an_additional_directory_is_read_through_the_editor(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The editor's path check allows what the tools allow: the workspace and the session's
    extra roots (``additionalDirectories``), nothing else."""
    ws, client = _editor_workspace(tmp_path)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "util.py").write_text("on disk\n")
    client.buffers[str(lib / "util.py")] = "in the editor\n"
    read = {"id": "r1", "name": "read_file", "input": {"path": str(lib / "util.py")}}
    fake_llm.set_script([{"tool_calls": [read]}, {"text": "Read it."}])
    async with acp_agent(ws, fake_llm, client, home=tmp_path, capabilities=EDITOR) as conn:
        session = await conn.new_session(
            cwd=str(ws), mcp_servers=[], additional_directories=[str(lib)]
        )
        await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
        await client.wait_for("agent_message_chunk")
    (told,) = _tool_results(fake_llm)
    assert "in the editor" in told and "on disk" not in told
    assert ("fs/read_text_file", str(lib / "util.py")) in client.requests
