"""create_file with the file's current content runs without asking and changes nothing (issue 11,
item 8): `agent-tui -p --on-approval fail` must not stop with exit 3 for it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import last_json, run_on_fake

CONTENT = "def main():\n    print('hi')\n"


def test_identical_overwrite_runs_without_asking(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    path = ws / "app.py"
    path.write_text(CONTENT)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    write = {"path": "app.py", "content": CONTENT}
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "r", "name": "read_file", "input": {"path": "app.py"}}]},
            {"tool_calls": [{"id": "w", "name": "create_file", "input": write}]},
            {"text": "The file was already right."},
        ]
    )
    proc = run_on_fake(
        ws,
        fake_llm,
        "-p",
        "write app.py",
        "--output-format",
        "json",
        "--on-approval",
        "fail",
        home=tmp_path,
        state=tmp_path / "state",
    )
    assert proc.returncode == 0, proc.stderr
    assert path.read_text() == CONTENT and path.stat().st_mtime_ns == 1_000_000_000
    assert [p.name for p in ws.iterdir()] == ["app.py"]  # no temp file left either
    result = last_json(proc)
    assert [(c["name"], c["is_error"]) for c in result["tool_calls"]] == [
        ("read_file", False),
        ("create_file", False),
    ]
    sent = json.dumps(fake_llm.requests[2]["messages"][-1])
    assert "app.py already had this content; nothing was written (no change)." in sent
