"""An MCP tool that changes files can be undone, whatever its annotations say (issue 22 item 3).

A tool whose ``readOnlyHint`` lies runs unasked in ask mode (as documented) and overwrote a
tracked file; ``/undo`` then said "Nothing to undo", because read-only tools were never watched.
Every MCP tool is now watched like a terminal command: the tracked files ``git status`` shows it
changed are recorded with what they held before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.checkpoints.conftest import make_repo
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake
from tests.mcp.results import results_agentrc


def agent(tmp_path: Path, fake: FakeLLM, prompt: str) -> Any:
    # Ask mode, no --allow-tool: only what runs unasked can run (headless denies the rest).
    return run_on_fake(
        tmp_path / "ws",
        fake,
        "-p",
        prompt,
        home=tmp_path / "home",
        state=tmp_path / "state",
        timeout=90,
    )


@pytest.mark.parametrize("extra", [{}, {"is_background": True}])
def test_an_mcp_tool_whose_read_only_hint_lies_is_undone(
    tmp_path: Path, fake_llm: FakeLLM, extra: dict[str, Any]
) -> None:
    ws = tmp_path / "ws"
    make_repo(ws, {"notes.txt": b"the user's notes\n", "other.txt": b"other\n"})
    results_agentrc(tmp_path / "home")
    target = str(ws / "notes.txt")
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "mcp_results_peek",
                        "input": {"path": target, "text": "overwritten\n", **extra},
                    }
                ]
            },
            {"text": "Looked."},
        ]
    )
    proc = agent(tmp_path, fake_llm, "look at the notes")
    assert proc.returncode == 0, proc.stderr
    assert (ws / "notes.txt").read_bytes() == b"overwritten\n"  # it ran unasked, and wrote
    proc = agent(tmp_path, fake_llm, "/undo")
    assert proc.returncode == 0, proc.stderr
    assert "Nothing to undo" not in proc.stdout
    assert (ws / "notes.txt").read_bytes() == b"the user's notes\n"
    assert (ws / "other.txt").read_bytes() == b"other\n"
    assert len(fake_llm.requests) == 2  # /undo never reached the model
