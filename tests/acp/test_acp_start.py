"""``agent-tui acp``'s start: ``initialize`` is answered before the ``acp`` library (and the core's
events and door) are imported, from the same answer the library's model accepts; what the client
sent past it, and a first line that is not ``initialize``, still reach the library."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import acp
from acp.schema import InitializeResponse

from agent_tui.acp import handshake
from tests.acp.acp_client import DEADLINE_S
from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env, new_workspace

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}


def test_the_early_answer_is_the_librarys_initialize_response() -> None:
    assert handshake.PROTOCOL_VERSION == acp.PROTOCOL_VERSION
    answer = InitializeResponse.model_validate(handshake.initialize_result(7))
    assert answer.protocol_version == acp.PROTOCOL_VERSION
    caps = answer.agent_capabilities
    assert caps is not None and caps.session_capabilities is not None
    assert caps.session_capabilities.list is not None


async def _talk(ws: Path, fake: FakeLLM, home: Path, *lines: dict[str, Any]) -> list[str]:
    """Start ``agent-tui acp`` with stdout and stderr on one pipe (so their order is kept) and
    ``PYTHONPROFILEIMPORTTIME`` on; send ``lines`` in one write; return what came out until an
    answer to each request arrived."""
    env = clean_env(
        {
            "HOME": str(home),
            "AGENT_TUI_STATE_DIR": str(home / "state"),
            "ANTHROPIC_API_KEY": "k",
            "PYTHONPROFILEIMPORTTIME": "1",
        }
    )
    args = ("-m", "agent_tui", "acp", "--provider", "anthropic", "--base-url", fake.url)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        cwd=ws,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        limit=1 << 24,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(json.dumps(line).encode() + b"\n" for line in lines))
    waiting = {line["id"] for line in lines if "id" in line}
    out: list[str] = []
    try:
        while waiting:
            raw = await asyncio.wait_for(proc.stdout.readline(), DEADLINE_S)
            assert raw, "the agent ended: " + "".join(out[-20:])
            out.append(raw.decode())
            if raw.startswith(b"{") and (answered := json.loads(raw).get("id")) in waiting:
                waiting.discard(answered)
    finally:
        proc.stdin.close()
        await asyncio.wait_for(proc.wait(), DEADLINE_S)
    return out


def _answer_index(out: list[str], request_id: int) -> int:
    return next(
        i
        for i, line in enumerate(out)
        if line.startswith("{") and json.loads(line)["id"] == request_id
    )


def _imported_before(out: list[str], index: int) -> set[str]:
    return {
        line.rsplit("|", 1)[1].strip()
        for line in out[:index]
        if line.startswith("import time:") and "|" in line
    }


async def test_initialize_is_answered_before_the_library_is_imported(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """And a ``session/new`` sent in the same write as ``initialize`` is answered too."""
    ws = new_workspace(tmp_path)
    new = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/new",
        "params": {"cwd": str(ws), "mcpServers": []},
    }
    out = await _talk(ws, fake_llm, tmp_path, INITIALIZE, new)
    first = _answer_index(out, 0)
    before = _imported_before(out, first)
    assert "agent_tui.cli" in before  # the report is there: the check below can see imports
    assert not {"acp", "pydantic", "agent_tui.events", "agent_tui.front"} & before
    answer = InitializeResponse.model_validate(json.loads(out[first])["result"])
    assert answer.agent_info is not None and answer.agent_info.name == "agent-tui"
    session = json.loads(out[_answer_index(out, 1)])
    assert session["result"]["sessionId"]


async def test_a_first_line_that_is_not_initialize_goes_to_the_library(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """``authenticate`` first: the library answers it; a later ``initialize`` goes through the
    library to the server, with the same answer."""
    ws = new_workspace(tmp_path)
    auth = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "authenticate",
        "params": {"methodId": "env-api-key"},
    }
    late = {**INITIALIZE, "id": 6}
    out = await _talk(ws, fake_llm, tmp_path, auth, late)
    assert json.loads(out[_answer_index(out, 5)])["result"] == {}
    assert "acp" in _imported_before(out, _answer_index(out, 5))
    result = json.loads(out[_answer_index(out, 6)])["result"]
    assert InitializeResponse.model_validate(result) == InitializeResponse.model_validate(
        handshake.initialize_result(1)
    )
