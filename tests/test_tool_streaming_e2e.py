"""A streaming tool call is announced at its start in headless mode (issue 11, item 12): text mode
writes one stderr line per call (not one per fragment); stream-json carries throttled
``tool_call_streaming`` events, all before the call's ``tool_call_started``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli, run_on_fake

CONTENT = "x = 'a line of generated code'\n" * 3000  # ~90 KB: ~9,000 fragments of 10 bytes


def run(tmp_path: Path, fake_llm: FakeLLM, api: str, fmt: str) -> tuple[int, str, str, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    write = {"path": "gen/big.py", "content": CONTENT}
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "w1", "name": "create_file", "input": write}]},
            {"text": "Written."},
        ]
    )
    env = {
        "HOME": str(tmp_path),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "k",
        "OPENAI_API_KEY": "k",
    }
    url = fake_llm.url if api == "anthropic" else fake_llm.openai_url
    proc = run_cli(
        ws,
        "-p",
        "generate",
        "--provider",
        api,
        "--base-url",
        url,
        "--output-format",
        fmt,
        "--allow-tool",
        "create_file",
        env=env,
    )
    return proc.returncode, proc.stdout, proc.stderr, ws


@pytest.mark.parametrize("api", ["anthropic", "openai"])
def test_text_mode_announces_a_streaming_call_once(
    tmp_path: Path, fake_llm: FakeLLM, api: str
) -> None:
    code, stdout, stderr, ws = run(tmp_path, fake_llm, api, "text")
    assert code == 0, stderr
    assert (ws / "gen" / "big.py").read_text() == CONTENT
    lines = stderr.splitlines()
    assert lines.count("… create_file") == 1
    assert lines.index("… create_file") < lines.index("● Created gen/big.py (3,000 lines)")
    assert stdout.strip() == "Written."


def test_stream_json_carries_throttled_progress_before_the_call(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    code, stdout, stderr, _ = run(tmp_path, fake_llm, "anthropic", "stream-json")
    assert code == 0, stderr
    events = [json.loads(line) for line in stdout.splitlines()]
    types = [e["type"] for e in events]
    streaming = [e for e in events if e["type"] == "tool_call_streaming"]
    assert streaming[0] == {
        "type": "tool_call_streaming",
        "call_id": "w1",
        "name": "create_file",
        "bytes_so_far": 0,
        "path": "",
    }
    assert len(streaming) < 200  # not one per fragment (~9,000)
    assert all(e["call_id"] == "w1" for e in streaming)
    sizes = [e["bytes_so_far"] for e in streaming]
    assert sizes == sorted(sizes)
    last = max(i for i, t in enumerate(types) if t == "tool_call_streaming")
    assert last < types.index("tool_call_started")


def test_start_line_escapes_a_hostile_tool_name(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    names = ["evil\x1b]2;owned\x07", "x\u202egnp.exe", "a\rb"]
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {"id": f"c{n}", "name": name, "input": {}} for n, name in enumerate(names)
                ]
            }
        ]
        + [{"text": "Done."}]
    )
    proc = run_on_fake(ws, fake_llm, "-p", "go", home=tmp_path, state=tmp_path / "s")
    starts = [line for line in proc.stderr.split("\n") if line.startswith("… ")]
    assert starts == [
        '… "evil\\u001b]2;owned\\u0007"',
        '… "x\\u202egnp.exe"',
        '… "a\\rb"',
    ]
