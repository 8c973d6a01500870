"""A tool call is reported as soon as it starts streaming, then with throttled progress (issue 11,
item 12): the pure ``CallProgress`` with a stepped clock, and the loop with the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui import events as ev
from agent_tui.agent.call_progress import CallProgress, path_in, progress_message, shown_name
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.providers.base import TextDelta, ToolCallDelta, ToolCallEnd, ToolCallStart


class SteppedClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_start_is_reported_at_once_then_at_most_once_per_interval() -> None:
    clock = SteppedClock()
    progress = CallProgress(clock=clock, interval=1.0)
    first = progress.feed(ToolCallStart(0, "toolu_1", "create_file"))
    assert first == ev.ToolCallStreaming("toolu_1", "create_file", 0, "")
    arguments = json.dumps({"path": "src/app.py", "content": "x" * 5000})
    pieces = [arguments[at : at + 11] for at in range(0, len(arguments), 11)]
    sent = []
    for n, piece in enumerate(pieces):
        if n % 50 == 0:
            clock.now += 0.5  # half an interval passes every 50 pieces
        update = progress.feed(ToolCallDelta(0, piece))
        if update is not None:
            sent.append((n, update))
    assert [n for n, _ in sent] == [50, 150, 250, 350, 450]  # one per interval, not per piece
    n, last = sent[-1]
    assert last.path == "src/app.py"
    assert last.bytes_so_far == sum(len(p) for p in pieces[: n + 1])
    assert progress.feed(ToolCallEnd(0)) is None
    assert progress.feed(TextDelta("later text")) is None


def test_calls_are_throttled_separately_and_unknown_indexes_ignored() -> None:
    clock = SteppedClock()
    progress = CallProgress(clock=clock)
    assert progress.feed(ToolCallDelta(3, '{"a": 1}')) is None  # no start seen: nothing to say
    assert progress.feed(ToolCallStart(0, "a", "read_file")) is not None
    assert progress.feed(ToolCallStart(1, "b", "apply_patch")) is not None
    clock.now += 0.2
    patch = json.dumps({"input": "*** Begin Patch\n*** Update File: lib/x.py\n@@\n-a\n+b\n"})
    update = progress.feed(ToolCallDelta(1, patch))
    assert update == ev.ToolCallStreaming("b", "apply_patch", len(patch), "lib/x.py")
    assert progress.feed(ToolCallDelta(1, " ")) is None  # within the interval


@pytest.mark.parametrize(
    ("head", "path"),
    [
        ('{"path": "src/app.py", "content": "', "src/app.py"),
        ('{"content": "abc", "path" : "a b/c\\u00e9.py"}', "a b/c\u00e9.py"),
        ('{"path": "dir\\\\file.txt"', "dir\\file.txt"),
        ('{"path": "src/ap', ""),  # not complete yet
        ('{"path": "evil\\u202egnp.py"}', ""),  # a bidi override would disguise the name
        ('{"path": "a\\u001b[2Jb.py"}', ""),  # so would an escape sequence
        ('{"path": "' + "x" * 300 + '"}', ""),  # too long to be shown usefully
        ('{"input": "*** Begin Patch\\n*** Add File: docs/new.md\\n+hi"}', "docs/new.md"),
        ('{"command": "ls"}', ""),
    ],
)
def test_path_in_partial_arguments(head: str, path: str) -> None:
    assert path_in(head) == path


def test_progress_message() -> None:
    assert progress_message(ev.ToolCallStreaming("c", "create_file", 0)) == "create_file: writing …"
    assert (
        progress_message(ev.ToolCallStreaming("c", "create_file", 12_345, "src/app.py"))
        == "create_file: writing src/app.py … 12.1 KB"
    )
    assert (
        progress_message(ev.ToolCallStreaming("c", "mcp_x_y", 800)) == "mcp_x_y: receiving … 800 B"
    )


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("create_file", "create_file"),
        ("mcp_git-server_log.v2", "mcp_git-server_log.v2"),
        ("evil\x1b[2Jname", '"evil\\u001b[2Jname"'),
        ("rm\u202etxt.exe", '"rm\\u202etxt.exe"'),
        ("", '""'),
        ("x" * 300, '"' + "x" * 100 + '"'),
    ],
)
def test_model_chosen_tool_names_are_escaped_when_shown(name: str, shown: str) -> None:
    assert shown_name(name) == shown
    assert progress_message(ev.ToolCallStreaming("c", name, 0)).startswith(shown + ": ")


async def test_loop_reports_a_streaming_call_before_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    content = "line of text\n" * 2000
    turns = [
        {
            "tool_calls": [
                {"id": "big", "name": "create_file", "input": {"path": "a.txt", "content": content}}
            ]
        },
        {"text": "Written."},
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    layer = {"model": {"provider": "scripted", "script": str(script)}}
    config = load_config(workspace, cli=layer, env={}, user_file=tmp_path / "no-rc")
    agent = build_agent(config, allow_tools=["create_file"])
    events = [event async for event in agent.run("write it")]
    kinds = [type(e).__name__ for e in events]
    streaming = [e for e in events if isinstance(e, ev.ToolCallStreaming)]
    assert streaming and streaming[0] == ev.ToolCallStreaming("big", "create_file", 0, "")
    assert kinds.index("ToolCallStreaming") < kinds.index("ToolCallStarted")
    assert all(kinds.index("ToolCallStarted") > kinds.index(k) for k in kinds[:1])
    last_streaming = max(i for i, k in enumerate(kinds) if k == "ToolCallStreaming")
    assert last_streaming < kinds.index("ToolCallStarted")
    assert len(streaming) < 100  # throttled: the 26 KB arrive in ~2,600 fragments
    assert (workspace / "a.txt").read_text() == content
