"""What Toad (PyPI batrachian-toad 0.6.20, a Textual ACP client) showed wrong, replayed with the
library's client side offering what Toad offers: the real Toad run is scripts/toad_check.sh (a
Python 3.14 chroot, so not part of the suite). Toad applies a permission request's tool call to
the call it draws, and draws agent messages as Markdown."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from acp import text_block
from acp.schema import (
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    WriteTextFileResponse,
)

from tests.acp.acp_client import RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

CREATE = {"id": "c1", "name": "create_file", "input": {"path": "hello.txt", "content": "hi\n"}}
# What Toad 0.6.20 offers in initialize (its log of the session, ~/.local/state/toad/logs/).
TOAD_OFFERS = ClientCapabilities(
    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True), terminal=True
)


@dataclass
class ToadLikeClient(RecordingClient):
    """Answers ``fs/*`` as Toad does: from and to the disk (no commands run in these tests)."""

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=Path(path).read_text(encoding="utf-8"))

    async def write_text_file(
        self, content: str, path: str, session_id: str, **_: Any
    ) -> WriteTextFileResponse:
        Path(path).write_text(content, encoding="utf-8")
        return WriteTextFileResponse()


@pytest.mark.parametrize("answer", ["allow_once", "reject_once"])
async def test_the_call_gets_its_own_title_back_after_the_approval(
    tmp_path: Path, fake_llm: FakeLLM, answer: str
) -> None:
    """Toad kept "Creating hello.txt (asked: … matches no rule or grant)" on a rejected call for
    good: the permission request's title said why it asked and no later update replaced it."""
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [CREATE]}, {"text": "Understood."}])
    client = ToadLikeClient(answer=answer)
    async with acp_agent(ws, fake_llm, client, home=tmp_path, capabilities=TOAD_OFFERS) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("make hello.txt")])
    (start,) = client.of("tool_call")
    (asked, _options), *_ = client.asked
    assert "asked" in (asked.title or "") and "asked" not in start.title
    decided = client.of("tool_call_update")[0]  # the first update after the answer
    assert decided.status == ("in_progress" if answer == "allow_once" else "failed")
    assert decided.title == start.title
    assert (ws / "hello.txt").exists() is (answer == "allow_once")


def _path_without_bwrap(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "git"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


async def test_the_start_notes_are_said_once_each_in_a_paragraph(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """Where bwrap is missing (as in Toad's chroot), Toad showed the sandbox note twice, run into
    one paragraph: it was both a warning and a startup notice, and notes were joined by a single
    newline, which Markdown folds."""
    ws = new_workspace(tmp_path)
    client = ToadLikeClient()
    env = {"PATH": _path_without_bwrap(tmp_path)}
    async with acp_agent(
        ws, fake_llm, client, "--yolo", home=tmp_path, env=env, capabilities=TOAD_OFFERS
    ) as conn:
        await conn.new_session(cwd=str(ws), mcp_servers=[])
        await client.wait_for("agent_message_chunk")
    paragraphs = client.text().strip().split("\n\n")
    assert [p.split(":")[0] for p in paragraphs] == ["note", "note"]
    assert paragraphs[0].startswith("note: --yolo")
    assert paragraphs[1].startswith(
        "note: Sandbox unavailable: bwrap (bubblewrap) is not installed"
    )
