"""The provider's own web search (``[web] search = "provider"``) through `agent-tui -p`, against the
fake server's Anthropic server-tool events and Responses web_search_call items, both transports:
the tool is offered, the search and the answer's sources come out in stream-json, json and on
stderr (web text shown escaped), and --continue sends the server blocks back from the session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace, run_on_api

RC = '[web]\nsearch = "provider"\nmax_uses = 3\n'
SEARCH = {
    "query": "python 3.13 release date",
    "results": [
        {"title": "Python 3.13.0", "url": "https://www.python.org/downloads/3.13/"},
        {"title": "PEP 719 \x1b[2J\u202eevil", "url": "https://peps.python.org/pep-0719/"},
    ],
}
CITED = {"url": "https://peps.python.org/pep-0719/", "title": "PEP 719", "cited_text": "7 Oct"}
TURN = {"web_searches": [SEARCH], "text": "It came out on 7 Oct 2024.", "citations": [CITED]}
CASES = [("anthropic", "httpx"), ("anthropic", "sdk"), ("responses", "httpx"), ("responses", "sdk")]


def _run(ws: Path, fake: FakeLLM, api: str, transport: str, *args: str) -> Any:
    wire = ("--wire-api", "responses") if api == "responses" else ()
    provider = "anthropic" if api == "anthropic" else "openai"
    flags = ("--transport", transport, *wire, *args)
    return run_on_api(ws, fake, provider, *flags, key="k", rc=RC, timeout=90)


def _json_lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.parametrize(("api", "transport"), CASES)
def test_search_shown_and_sent_back_after_continue(
    tmp_path: Path, fake_llm: FakeLLM, api: str, transport: str
) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([TURN, {"text": "You're welcome."}])

    first = _run(ws, fake_llm, api, transport, "-p", "when?", "--output-format", "stream-json")
    second = _run(ws, fake_llm, api, transport, "-p", "thanks", "--continue")

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    tools = fake_llm.requests[0]["tools"]
    if api == "anthropic":
        assert tools == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}] + [
            t for t in tools if "input_schema" in t
        ]
    else:
        assert {"type": "web_search"} in tools
    lines = _json_lines(first.stdout)
    searched = [line for line in lines if line["type"] == "web_search"]
    titles = ["Python 3.13.0", "PEP 719 \x1b[2J\u202eevil"] if api == "anthropic" else ["", ""]
    urls = [r["url"] for r in SEARCH["results"]]
    sources = [{"title": t, "url": u} for t, u in zip(titles, urls, strict=True)]
    assert searched == [
        {"type": "web_search", "query": SEARCH["query"], "sources": sources, "error": ""}
    ]
    cited = [line for line in lines if line["type"] == "citations"]
    assert cited == [{"type": "citations", "sources": [{"title": "PEP 719", "url": CITED["url"]}]}]
    assert lines[-1]["web_searches"][0]["query"] == SEARCH["query"]
    assert lines[-1]["sources"] == cited[0]["sources"]
    _assert_sent_back(api, fake_llm.requests[1])


def _assert_sent_back(api: str, request: dict[str, Any]) -> None:
    """The restored session's answer carries its search blocks to the API, in their place."""
    if api == "anthropic":
        answer = request["messages"][1]["content"]
        kinds = [b["type"] for b in answer]
        assert kinds == ["server_tool_use", "web_search_tool_result", "text"]
        assert answer[0]["input"] == {"query": SEARCH["query"]}
        assert answer[1]["content"][1]["encrypted_content"].startswith("enc-")
    else:
        items = [i for i in request["input"] if i.get("type") == "web_search_call"]
        assert len(items) == 1 and items[0]["action"]["query"] == SEARCH["query"]
        assert request["input"].index(items[0]) == 1  # after the question, before the answer


def test_text_mode_shows_the_search_escaped_on_stderr(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([TURN])

    proc = _run(ws, fake_llm, "anthropic", "httpx", "-p", "when?")

    assert proc.returncode == 0, proc.stderr
    assert "● Searched the web: python 3.13 release date (2 sources)\n" in proc.stderr
    assert "sources:\n  [1] PEP 719 <https://peps.python.org/pep-0719/>\n" in proc.stderr
    assert "\x1b" not in proc.stderr and "\u202e" not in proc.stderr
    assert proc.stdout.strip() == "It came out on 7 Oct 2024."


def test_off_unless_configured(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"text": "ok"}])

    proc = run_on_api(ws, fake_llm, "anthropic", "-p", "hi", key="k")

    assert proc.returncode == 0, proc.stderr
    assert all("input_schema" in t for t in fake_llm.requests[0]["tools"])


def test_a_paused_search_says_how_to_go_on(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script(
        [{"web_searches": [SEARCH], "text": "Still looking", "stop_reason": "pause_turn"}]
    )

    proc = _run(ws, fake_llm, "anthropic", "httpx", "-p", "when?")

    assert proc.returncode == 0, proc.stderr
    assert "note: The provider paused its web search mid-answer; ask the model to continue.\n" in (
        proc.stderr
    )


def test_the_flag_turns_it_on_and_off(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"text": "ok"}, {"text": "ok"}])

    on = run_on_api(ws, fake_llm, "anthropic", "-p", "hi", "--web-search", "provider", key="k")
    off = _run(ws, fake_llm, "anthropic", "httpx", "-p", "hi", "--web-search", "off")  # rc: on

    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    first, second = (r["tools"] for r in fake_llm.requests)
    assert first[0] == {"type": "web_search_20250305", "name": "web_search", "max_uses": 5}
    assert all("input_schema" in t for t in second)
