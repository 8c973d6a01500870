"""Tool search end to end (issue 26 items 4-5, issue 28 item 4): real ``agent-tui -p`` processes, a
real stdio MCP server with 300 tools (``catalog_server.py``) and the fake model server, whose
recorded request bodies show which tools each request offered.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_api, run_on_fake, tool_results
from tests.toolsearch.helpers import catalog_agentrc, offered, prompt_chars, system_text

SMALL_CORE = {
    "read_file",
    "list_dir",
    "create_file",
    "replace_string_in_file",
    "run_in_terminal",
    "tool_search",
}


def go(tmp_path: Path, fake_llm: FakeLLM, rc: str, *flags: str) -> Any:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    (home / ".agentrc").write_text(rc)
    return run_on_fake(
        ws,
        fake_llm,
        "-p",
        "what is the weather in Oslo?",
        "--yolo",
        *flags,
        home=home,
        state=tmp_path / "state",
        timeout=90,
    )


def test_the_model_finds_a_tool_among_300_loads_it_and_calls_it(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "s1", "name": "tool_search", "input": {"query": "weather"}}]},
            {
                "tool_calls": [
                    {
                        "id": "c1",
                        "name": "mcp_catalog_get_weather_forecast",
                        "input": {"city": "Oslo"},
                    }
                ]
            },
            {"text": "Sunny in Oslo."},
        ]
    )
    proc = go(tmp_path, fake_llm, catalog_agentrc(300, marks))
    assert proc.returncode == 0, proc.stderr
    first, second, third = fake_llm.requests
    # 300 tools' schemas are over 10% of the window: none of them is sent before it is asked for.
    assert "tool_search" in offered(first)
    assert not any(name.startswith("mcp_catalog_") for name in offered(first))
    found = tool_results(second)["s1"]
    assert found.startswith("Loaded 1 tool(s)")
    assert "- mcp_catalog_get_weather_forecast (MCP server catalog): Get the weather" in found
    # Loaded: offered from the next request on, with its schema, and kept for the session.
    for request in (second, third):
        assert "mcp_catalog_get_weather_forecast" in offered(request)
        assert len([n for n in offered(request) if n.startswith("mcp_catalog_")]) == 1
    schema = next(t for t in second["tools"] if t["name"] == "mcp_catalog_get_weather_forecast")
    assert "city" in schema["input_schema"]["properties"]
    assert (marks / "ran-get_weather_forecast").exists()
    assert tool_results(third)["c1"] == "get_weather_forecast ran for Oslo: sunny"
    assert "tool_search" in proc.stderr  # the notice says how the tools past 128 are reached


def test_a_few_mcp_tools_within_the_share_are_offered_up_front(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    fake_llm.set_script([{"text": "ok"}])
    proc = go(tmp_path, fake_llm, catalog_agentrc(6, marks))
    assert proc.returncode == 0, proc.stderr
    names = offered(fake_llm.requests[0])
    assert len([n for n in names if n.startswith("mcp_catalog_")]) == 6
    # tool_search stays for the rarely used built-ins, which wait behind it.
    assert "tool_search" in names and "kill_terminal" not in names


def test_a_hostile_description_gets_no_more_than_its_usual_place(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "s1", "name": "tool_search", "input": {"query": "sync notes"}}]},
            {"text": "done"},
        ]
    )
    proc = go(tmp_path, fake_llm, catalog_agentrc(300, marks))
    assert proc.returncode == 0, proc.stderr
    second = fake_llm.requests[1]
    found = tool_results(second)["s1"]
    [line] = [line for line in found.splitlines() if "mcp_catalog_sync_notes" in line]
    # One labelled line: its source said, control characters shown, cut, the next line dropped.
    assert line.startswith("- mcp_catalog_sync_notes (MCP server catalog): Sync notes.")
    assert "\x1b" not in found and "\x07" not in found and "␛" in line
    assert len(line) < 300 and line.endswith("…")
    assert "SECOND-LINE-ORDER" not in found
    # The instruction reaches no system prompt, and nothing ran because of it.
    for request in fake_llm.requests:
        assert "IGNORE ALL PREVIOUS" not in system_text(request)
    assert not (marks / "ran-sync_notes").exists()  # found is loaded, not run


def test_the_default_prompt_is_at_most_12000_characters(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The first request of a default setup (no MCP, no skills) as the fake server received it."""
    fake_llm.set_script([{"text": "hello"}])
    proc = go(tmp_path, fake_llm, "")
    assert proc.returncode == 0, proc.stderr
    first = fake_llm.requests[0]
    names = offered(first)
    assert prompt_chars(first) <= 12_000, (len(system_text(first)), names)
    # Nothing is offered with nothing behind it, and the core stays.
    assert "read_skill" not in names and "tool_search" in names
    assert {"read_file", "grep_search", "replace_string_in_file", "run_in_terminal"} <= set(names)
    assert system_text(first).startswith("You are agent-tui, a coding agent working")


def test_a_4k_local_window_starts_and_a_tool_call_round_trips(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 4096
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("the answer is 42\n")
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "notes.txt"}}]},
            {"text": "It says 42."},
        ]
    )
    proc = run_on_api(
        ws, fake_llm, "openai", "-p", "what do the notes say?", "--output-format", "json", key="k"
    )
    assert proc.returncode == 0, proc.stderr
    first, second = fake_llm.requests
    assert set(offered(first)) == SMALL_CORE
    system = system_text(first)
    assert "- `tool_search` finds more tools" in system and "# How to work" not in system
    # The prompt fits the 2,048 tokens a 4k window leaves beside the reply (chars/4).
    assert prompt_chars(first) / 4 < 2048 * 0.8, prompt_chars(first)
    result = next(m for m in second["messages"] if m["role"] == "tool")
    assert "the answer is 42" in str(result["content"])
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "It says 42."
