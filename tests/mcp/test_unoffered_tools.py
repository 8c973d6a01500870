"""Only the tools a request offered run (issue 22 item 2).

With 317 MCP tools (over the 128-tool cap) a model's call to a tool the request left out used to
run. Every call is now checked against exactly the list that request sent: a tool deferred behind
tool_search and not loaded (issue 26), a disabled one, one outside the participant's set, an
invented name, all get a result saying the tool is not available in this request, and nothing runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_fake, tool_results
from tests.mcp.results import results_agentrc


def offered(request: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in request["tools"]]


def go(tmp_path: Path, fake_llm: FakeLLM, prompt: str = "go", *flags: str) -> Any:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_fake(
        ws,
        fake_llm,
        "-p",
        prompt,
        "--yolo",
        *flags,
        home=tmp_path / "home",
        state=tmp_path / "state",
        timeout=90,
    )


def test_a_deferred_tool_called_by_name_does_not_run_but_is_loaded(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    results_agentrc(tmp_path / "home", env={"RESULTS_TOOLS": "300", "RESULTS_DIR": str(marks)})
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "mcp_results_f290", "input": {}}]},
            {"tool_calls": [{"id": "c2", "name": "mcp_results_f290", "input": {}}]},
            {"text": "Finished."},
        ]
    )
    proc = go(tmp_path, fake_llm)
    assert proc.returncode == 0, proc.stderr
    first, second, _ = fake_llm.requests
    # 300 MCP tools are more than a request carries: the core tools and tool_search are offered.
    names = offered(first)
    assert "tool_search" in names and not any(n.startswith("mcp_results_") for n in names)
    # Called by its name without being offered: it does not run, and the next request offers it.
    assert tool_results(second)["c1"] == (
        "mcp_results_f290 was not offered with this request and did not run; it is loaded now: "
        "call it again."
    )
    assert "mcp_results_f290" in offered(second)
    assert [n for n in offered(second) if n.startswith("mcp_results_")] == ["mcp_results_f290"]
    assert (marks / "ran-f290").exists()  # the second call, offered, ran


def test_a_disabled_tool_does_not_run_when_the_model_calls_it(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    results_agentrc(
        tmp_path / "home",
        env={"RESULTS_TOOLS": "3", "RESULTS_DIR": str(marks)},
        extra='[tools]\ndisabled = ["create_file", "mcp_results_f001"]\n',
    )
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "create_file", "input": {"path": "a.txt", "content": "x"}},
                    {"id": "c2", "name": "mcp_results_f001", "input": {}},
                    {"id": "c3", "name": "make_coffee", "input": {}},
                ]
            },
            {"text": "Finished."},
        ]
    )
    proc = go(tmp_path, fake_llm)
    assert proc.returncode == 0, proc.stderr
    assert "create_file" not in offered(fake_llm.requests[0])
    assert not (tmp_path / "ws" / "a.txt").exists()
    assert not (marks / "ran-f001").exists()
    results = tool_results(fake_llm.requests[1])
    for call, name in (("c1", "create_file"), ("c2", "mcp_results_f001"), ("c3", "make_coffee")):
        assert f"{name!r} available in this request" in results[call]
        # The disabled tools are not named as available in any refusal.
        assert "create_file," not in results[call] and "f001," not in results[call]


def test_a_tool_outside_the_participants_set_does_not_run(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "create_file", "input": {"path": "a.txt", "content": "x"}}
                ]
            },
            {"text": "Finished."},
        ]
    )
    proc = go(tmp_path, fake_llm, "@workspace where is main?")
    assert proc.returncode == 0, proc.stderr
    assert "create_file" not in offered(fake_llm.requests[0])
    assert not (tmp_path / "ws" / "a.txt").exists()
    refusal = tool_results(fake_llm.requests[1])["c1"]
    assert "'create_file' available in this request" in refusal
    assert "read_file" in refusal  # what @workspace may use is named
