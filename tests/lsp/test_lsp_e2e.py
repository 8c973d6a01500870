"""Diagnostics after edits (issue 26 item 3) through `agent-tui -p`, with real language servers
from PyPI (basedpyright, ruff) and the fake LLM server.

Checks what reached the model: an edit that adds a type error gets it in its result (and not the
error the file already had), an edit that fixes it gets none, the `diagnostics` tool, one notice
for a server that is not there, and no server process left once agent-tui has exited.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import missing, new_workspace, run_on_fake, tool_results

BIN = Path(sys.executable).parent
OLD = 'a: int = "old"\n'  # an error the file has before the agent touches it


def _server(name: str) -> list[str]:
    program = {"basedpyright": "basedpyright-langserver", "ruff": "ruff"}[name]
    found = shutil.which(program, path=str(BIN))
    if found is None:
        missing(f"{program} is not installed")
    return [found, "--stdio"] if name == "basedpyright" else [found, "server"]


def _rc(home: Path, command: list[str], extra: str = "") -> None:
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(
        f"[lsp]\ndefaults = false\nwait_s = 20\n{extra}\n"
        f'[lsp.servers.py]\ncommand = {json.dumps(command)}\npatterns = ["*.py"]\n'
    )


def _call(call_id: str, name: str, **input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "input": input}]}


def _replace(call_id: str, old: str, new: str) -> dict[str, Any]:
    return _call(call_id, "replace_string_in_file", path="m.py", old_string=old, new_string=new)


def _run(ws: Path, fake: FakeLLM, *args: str, env: dict[str, str] | None = None) -> Any:
    home = ws.parent / "home"
    return run_on_fake(
        ws,
        fake,
        "-p",
        "edit m.py",
        "--yolo",
        *args,
        home=home,
        state=ws.parent / "state",
        env=env,
        timeout=180,
    )


def _marked(marker: str) -> list[int]:
    """Processes whose environment holds ``marker`` (what agent-tui started for this test)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker.encode() in environ:
            found.append(int(entry.name))
    return found


def test_an_edit_gets_the_errors_it_added_and_a_fix_gets_none(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {"m.py": OLD + "b = 1\n"})
    _rc(tmp_path / "home", _server("basedpyright"))
    fake_llm.set_script(
        [
            _replace("e1", "b = 1\n", 'b: int = "new"\n'),
            _replace("e2", 'b: int = "new"\n', "b: int = 2\n"),
            {"text": "done"},
        ]
    )
    marker = f"LSP_TEST_{uuid.uuid4().hex}"

    proc = _run(ws, fake_llm, env={marker: "1"})

    assert proc.returncode == 0, proc.stderr
    broke = tool_results(fake_llm.requests[1])["e1"]
    assert "The language server reports new problems:" in broke
    assert "m.py:2:10 error" in broke and "\"Literal['new']\"" in broke, broke
    assert "(basedpyright)" in broke
    assert "old" not in broke  # line 1's error was there before the edit
    fixed = tool_results(fake_llm.requests[2])["e2"]
    assert "problems" not in fixed and "error" not in fixed, fixed
    assert _marked(marker) == []  # the server (and its node) is gone with agent-tui


def test_the_diagnostics_tool_reports_a_files_problems(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path, {"m.py": OLD})
    _rc(tmp_path / "home", _server("basedpyright"))
    search = _call("s1", "tool_search", query="diagnostics problems of a file")
    fake_llm.set_script([search, _call("d1", "diagnostics", path="m.py"), {"text": "done"}])

    proc = _run(ws, fake_llm)

    assert proc.returncode == 0, proc.stderr
    # Behind tool_search (edits report their problems anyway); found and offered from then on.
    assert "diagnostics" not in [t["name"] for t in fake_llm.requests[0]["tools"]]
    assert "diagnostics" in tool_results(fake_llm.requests[1])["s1"]
    assert "diagnostics" in [t["name"] for t in fake_llm.requests[1]["tools"]]
    result = tool_results(fake_llm.requests[2])["d1"]
    assert result.startswith("m.py:1:10 error Type \"Literal['old']\""), result


def test_no_diagnostics_tool_without_a_server(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path, {"m.py": OLD})
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".agentrc").write_text("[lsp]\ndefaults = false\n")
    fake_llm.set_script([{"text": "done"}])

    proc = _run(ws, fake_llm)

    assert proc.returncode == 0, proc.stderr
    assert "diagnostics" not in [t["name"] for t in fake_llm.requests[0]["tools"]]


def test_a_missing_server_is_one_notice_not_an_error_per_edit(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {"m.py": "b = 1\n"})
    _rc(tmp_path / "home", [str(tmp_path / "no-such-langserver"), "--stdio"])
    fake_llm.set_script(
        [_replace("e1", "b = 1", "b = 2"), _replace("e2", "b = 2", "b = 3"), {"text": "done"}]
    )

    proc = _run(ws, fake_llm, "--output-format", "json")

    assert proc.returncode == 0, proc.stderr
    notices = json.loads(proc.stdout.strip().splitlines()[-1])["notices"]
    skipped = [n for n in notices if "Language server py skipped" in n]
    assert len(skipped) == 1 and "is not installed" in skipped[0], notices
    assert (ws / "m.py").read_text() == "b = 3\n"
    results = tool_results(fake_llm.requests[2])
    assert "problems" not in results["e1"] + results["e2"]


def test_ruff_server_reports_an_unused_import_in_stream_json(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = new_workspace(tmp_path, {"m.py": "b = 1\n"})
    _rc(tmp_path / "home", _server("ruff"))
    fake_llm.set_script(
        [_call("c1", "create_file", path="n.py", content="import os\n"), {"text": "done"}]
    )

    proc = _run(ws, fake_llm, "--output-format", "stream-json")

    assert proc.returncode == 0, proc.stderr
    result = tool_results(fake_llm.requests[1])["c1"]
    assert "n.py:1:8 warning `os` imported but unused" in result, result
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    finished = [e for e in events if e.get("type") == "tool_call_finished"]
    assert "`os` imported but unused" in json.dumps(finished)
