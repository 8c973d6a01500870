"""Big tool results and big tool arguments (issue 22 item 7), through ``agent-tui -p``.

A 300 KB MCP result reached the model whole, a 10 MB one was dropped (the model was told to run
it again), and after a 900 KB ``create_file`` the conversation could not go on ("the request needs
about 285,271 tokens"). Now a result over ``[tools] max_result_chars`` reaches the model as its
start and end and the path of a file holding all of it, which read_file pages through without
asking; and a call that ran leaves its long arguments out of every later request.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from agent_tui.tools.result_files import DEFAULT_MAX_CHARS
from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake, tool_results
from tests.mcp.results import results_agentrc


def agent(tmp_path: Path, fake: FakeLLM, prompt: str, *flags: str) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_fake(
        ws,
        fake,
        "-p",
        prompt,
        *flags,
        home=tmp_path / "home",
        state=tmp_path / "state",
        timeout=180,
    )


def call(call_id: str, name: str, **tool_input: Any) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "input": tool_input}]}


@pytest.mark.parametrize("size", [300_000, 10_000_000])
def test_a_big_mcp_result_reaches_the_model_cut_with_the_whole_saved_for_read_file(
    tmp_path: Path, fake_llm: FakeLLM, size: int
) -> None:
    results_agentrc(tmp_path / "home")
    # Ask mode, nothing allowed: `big` says it only reads, and read_file of the saved file asks
    # nothing either (headless would refuse a call that needs approval).
    fake_llm.set_script([call("c1", "mcp_results_big", size=size), {"text": "Seen."}])
    proc = agent(tmp_path, fake_llm, "go")
    assert proc.returncode == 0, proc.stderr
    sent = tool_results(fake_llm.requests[1])["c1"]
    assert len(sent) < DEFAULT_MAX_CHARS
    assert sent.startswith("BEGIN-OF-RESULT\nline 0000001")  # the start
    shown, _, note = sent.rpartition("\n\n[agent-tui: ")
    assert shown.endswith("\nEND-OF-RESULT")  # the end
    assert "characters omitted here" in shown
    assert f"this result has {size:,} characters" in note
    assert "run it again" not in sent and "run the tool again" not in sent
    found = re.search(r"The whole result is saved in (\S+) \(([\d,]+) lines\)", note)
    assert found, note
    saved = Path(found[1])
    assert saved.is_relative_to(tmp_path / "state")  # the app's state dir, not the workspace
    whole = saved.read_text(encoding="utf-8")
    assert len(whole) == size
    assert whole.startswith("BEGIN-OF-RESULT\n") and whole.endswith("\nEND-OF-RESULT")
    assert not any((tmp_path / "ws").iterdir())  # nothing written into the workspace

    # The model reads a page of it in the next run, unasked; a file elsewhere in the state dir
    # stays out of reach.
    (tmp_path / "state" / "secret.txt").write_text("not for the model\n")
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {
                        "id": "r1",
                        "name": "read_file",
                        "input": {"path": str(saved), "start_line": 1001, "end_line": 1003},
                    },
                    {
                        "id": "r2",
                        "name": "read_file",
                        "input": {"path": str(tmp_path / "state" / "secret.txt")},
                    },
                ]
            },
            {"text": "Read."},
        ]
    )
    proc = agent(tmp_path, fake_llm, "read more")
    assert proc.returncode == 0, proc.stderr
    pages = tool_results(fake_llm.requests[3])
    assert "line 0001000" in pages["r1"] and "line 0001002" in pages["r1"]
    assert "line 0001003" not in pages["r1"]
    assert "outside the workspace" in pages["r2"] and "not for the model" not in pages["r2"]


def test_a_big_result_is_cut_at_the_configured_size(tmp_path: Path, fake_llm: FakeLLM) -> None:
    results_agentrc(tmp_path / "home", extra="[tools]\nmax_result_chars = 5000\n")
    fake_llm.set_script(
        [call("c1", "mcp_results_big", size=20_000), call("c2", "mcp_results_big", size=4_000)]
        + [{"text": "Seen."}]
    )
    proc = agent(tmp_path, fake_llm, "go")
    assert proc.returncode == 0, proc.stderr
    cut = tool_results(fake_llm.requests[1])["c1"]
    assert len(cut) < 5000 and "over the 5,000-character limit" in cut
    whole = tool_results(fake_llm.requests[2])["c2"]
    assert len(whole) == 4_000 and "limit" not in whole  # under the limit: as it came


def test_a_huge_create_file_does_not_stop_the_conversation(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    content = "".join(f"row {n:06d} {'z' * 40}\n" for n in range(20_000))  # ~ 900 KB
    assert len(content) > 900_000
    fake_llm.set_script(
        [
            call("w1", "create_file", path="big.txt", content=content),
            call("l1", "list_dir", path="."),
            {"text": "Done."},
        ]
    )
    proc = agent(
        tmp_path, fake_llm, "write it", "--allow-tool", "create_file", "--output-format", "json"
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "ws" / "big.txt").read_text() == content
    first, second, third = fake_llm.requests[-3:]
    # The round that makes the call sends nothing big; the ones after it leave the content out.
    assert len(json.dumps(first)) < 100_000
    for later in (second, third):
        size = len(json.dumps(later))
        assert size < 100_000, size
        assert "characters left out of this earlier call" in json.dumps(later)
    [use] = [
        block
        for message in second["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]
    assert use["input"]["path"] == "big.txt"  # the short arguments stay
    assert use["input"]["content"].startswith(f"[{len(content):,} characters left out")
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "Done."
