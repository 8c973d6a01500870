"""The session file replays to the conversation exactly (issue 12 §1): tails replaced in place
(merged user messages, edited tool inputs, undone turns), compaction, any event type."""

from __future__ import annotations

import gc
import json
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from agent_tui import events as ev
from agent_tui.conversation import (
    SUMMARY_HEADER,
    Conversation,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.sessions import SessionRecorder, SessionStore, load
from agent_tui.sessions.replay import replay_events


def _recorder(tmp_path: Path) -> SessionRecorder:
    return SessionRecorder(SessionStore(tmp_path / "state", tmp_path).create("m"))


def _dicts(conversation: Conversation) -> list[dict[str, object]]:
    return [m.to_dict() for m in conversation.messages]


def test_tails_replaced_in_place_load_back_exactly(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = Conversation()
    conv.append_user(user_text("fix it"))
    call = ToolUseBlock("c1", "run_in_terminal", {"command": "rm -rf build"})
    signed = ThinkingBlock("think", signature="sig-123")
    conv.append(Message("assistant", [signed, TextBlock("running"), call]))
    recorder.sync(conv)
    # The user edited the call's input before it ran: the history shows the input that ran.
    conv.replace_last(
        Message("assistant", [signed, ToolUseBlock("c1", call.name, {"command": "ls"})])
    )
    conv.append_user(Message("user", [ToolResultBlock("c1", "full output " * 500)]))
    recorder.sync(conv)
    # A cancel left a user message last: the next prompt merges into it.
    checkpoint = conv.checkpoint()
    conv.append_user(user_text("next"))
    recorder.sync(conv)
    conv.restore(checkpoint)  # ... and that turn was never answered: undone
    recorder.sync(conv)
    conv.append_user(user_text("again"))
    conv.append(Message("assistant", [TextBlock("done")]))
    recorder.sync(conv)
    loaded = load(recorder.writer.path)
    assert _dicts(loaded.conversation) == _dicts(conv)
    assert loaded.conversation.messages[1].content[0] == signed  # signed thinking kept
    kinds = [json.loads(line)["type"] for line in recorder.writer.path.read_text().splitlines()]
    # Edited input, merged "next", the undone turn, merged "again": each rewrites only the tail.
    assert kinds.count("rewind") == 4


@dataclass(frozen=True)
class _Compacted(ev.Event):
    """Stands for compaction's own event (issue 12 §3), as the sessions contract describes it."""

    type: ClassVar[str] = "conversation_compacted"
    summary: str
    replaced: int
    automatic: bool = False
    tokens_before: int = 0
    tokens_after: int = 0


def _three_exchanges() -> Conversation:
    """q0, a0, q1, a1, q2, a2."""
    conv = Conversation()
    for n in range(3):
        conv.append_user(user_text(f"q{n}"))
        conv.append(Message("assistant", [TextBlock(f"a{n}")]))
    return conv


def test_compaction_is_one_line_and_replays_through_compact(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = _three_exchanges()
    recorder.sync(conv)
    conv.append_user(user_text("q3"))  # appended with no event before the compaction
    conv.compact(4, "they asked q0 and q1")
    recorder.record(_Compacted("they asked q0 and q1", 4), conv)
    conv.append(Message("assistant", [TextBlock("a3")]))
    recorder.sync(conv)
    lines = [json.loads(x) for x in recorder.writer.path.read_text().splitlines()]
    assert {"type": "compaction", "upto": 4, "summary": "they asked q0 and q1"} in lines
    assert not any(line["type"] == "rewind" for line in lines)
    loaded = load(recorder.writer.path)
    assert _dicts(loaded.conversation) == _dicts(conv)
    assert loaded.conversation.messages[0].text.startswith(SUMMARY_HEADER)
    # The full history stays in the file: every message ever sent is there.
    assert sum(1 for line in lines if line["type"] == "message") == 8


def test_a_compaction_without_its_event_still_loads_exactly(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = _three_exchanges()
    recorder.sync(conv)
    conv.compact(2, "q0 was asked")
    recorder.sync(conv)
    assert _dicts(load(recorder.writer.path).conversation) == _dicts(conv)


@dataclass(frozen=True)
class _Probe(ev.Event):
    """An event type this package has never heard of."""

    type: ClassVar[str] = "probe_added_later"
    files: tuple[str, ...]
    to: int | None = None


def test_any_event_type_is_written_and_read_back(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = Conversation()
    recorder.record(ev.TurnStarted("hi"), conv)
    conv.append_user(user_text("hi"))
    recorder.record(_Probe(("a.py", "b.py"), 3), conv)
    recorder.record(ev.Notice("pruned something", "warning"), conv)
    recorder.record(ev.TextDelta("not written: the message holds it"), conv)
    loaded = load(recorder.writer.path)
    events = [e for e in loaded.drawable() if isinstance(e, ev.Event)]
    assert events == [
        ev.TurnStarted("hi"),
        _Probe(("a.py", "b.py"), 3),
        ev.Notice("pruned something", "warning"),
    ]
    assert loaded.header["title"] == "hi"
    drawn = list(replay_events(loaded.drawable()))
    assert drawn[0] == ev.TurnStarted("hi")


def test_nothing_is_written_before_the_first_turn(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    recorder.record(ev.CommandHandled("help", "the commands"), Conversation())
    recorder.sync(Conversation())
    assert not recorder.writer.path.exists()


def test_outputs_let_go_from_memory_stay_whole_in_the_file(tmp_path: Path) -> None:
    """Issue 12 §1: the file holds tool results in full even when later pruned from requests.
    agent/pruned_outputs.py replaces outputs no request carries by the placeholder in memory;
    a later tail rewrite (a prompt merged after a cancel) must not rewrite those messages with
    the placeholder, nor rewind further back than the merged message."""
    from agent_tui.agent.pruned_outputs import forget_pruned_outputs
    from agent_tui.conversation import ELIDED

    recorder = _recorder(tmp_path)
    conv = Conversation()
    conv.append_user(user_text("read them all"))
    for n in range(4):
        conv.append(Message("assistant", [ToolUseBlock(f"c{n}", "read_file", {"path": "f"})]))
        conv.append_user(Message("user", [ToolResultBlock(f"c{n}", f"OUTPUT-{n} " * 200)]))
    recorder.sync(conv)
    # The last request carried only the newest output: the others are let go from memory.
    sent = [
        m if m is conv.messages[-1] else Message(m.role, [
            ToolResultBlock(b.tool_use_id, ELIDED) if isinstance(b, ToolResultBlock) else b
            for b in m.content
        ])
        for m in conv.messages
    ]  # fmt: skip
    assert forget_pruned_outputs(conv, sent) == 3
    conv.append_user(user_text("ok go on"))  # merged into the last tool-result message
    recorder.sync(conv)
    lines = [json.loads(x) for x in recorder.writer.path.read_text().splitlines()]
    assert [line["to"] for line in lines if line["type"] == "rewind"] == [len(conv.messages) - 1]
    text = recorder.writer.path.read_text()
    assert ELIDED not in text
    assert all(f"OUTPUT-{n}" in text for n in range(4))
    loaded = load(recorder.writer.path).conversation
    results = [b for m in loaded.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.content.split()[0] for r in results] == [f"OUTPUT-{n}" for n in range(4)]


def test_the_recorder_lets_go_of_what_the_conversation_lightened(tmp_path: Path) -> None:
    """Regression: the recorder kept every message it wrote, so the outputs and long arguments
    the conversation let go (pruned_outputs, past_calls) stayed in memory anyway: a 300-round
    turn of file reads peaked at 57 MiB instead of 34."""
    from agent_tui.agent.past_calls import slim_past_calls
    from agent_tui.agent.pruned_outputs import forget_pruned_outputs
    from agent_tui.conversation import ELIDED

    recorder = _recorder(tmp_path)
    conv = Conversation()
    conv.append_user(user_text("write it, then read it many times"))
    conv.append(Message("assistant", [ToolUseBlock("w", "create_file", {"content": "x" * 9000})]))
    conv.append_user(Message("user", [ToolResultBlock("w", "created")]))
    for n in range(3):
        conv.append(Message("assistant", [ToolUseBlock(f"c{n}", "read_file", {"path": "f"})]))
        conv.append_user(Message("user", [ToolResultBlock(f"c{n}", f"OUTPUT-{n} " * 200)]))
    recorder.sync(conv)
    heavy = [weakref.ref(conv.messages[1].content[0])]  # the call with 9,000 characters
    heavy += [weakref.ref(conv.messages[i].content[0]) for i in (4, 6)]  # outputs 0 and 1
    assert slim_past_calls(conv) == 1
    sent = [
        Message(m.role, [ToolResultBlock(f"c{i // 2 - 2}", ELIDED)]) if i in (4, 6) else m
        for i, m in enumerate(conv.messages)
    ]
    assert forget_pruned_outputs(conv, sent) == 2
    del sent
    conv.append(Message("assistant", [TextBlock("done")]))
    recorder.sync(conv)
    gc.collect()
    assert [ref() for ref in heavy] == [None, None, None]
    # The file keeps what it had, and no rewind was written for the lighter messages.
    lines = [json.loads(x) for x in recorder.writer.path.read_text().splitlines()]
    assert not [line for line in lines if line["type"] == "rewind"]
    loaded = load(recorder.writer.path).conversation
    assert loaded.messages[1].content[0] == ToolUseBlock(
        "w", "create_file", {"content": "x" * 9000}
    )
    assert [b.content.split()[0] for m in loaded.messages[4:8:2] for b in m.content] == [
        "OUTPUT-0",
        "OUTPUT-1",
    ]


def test_a_message_from_before_a_rewind_is_not_taken_for_a_lightened_one(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = Conversation()
    conv.append_user(user_text("read f"))
    conv.append(Message("assistant", [ToolUseBlock("c1", "read_file", {"path": "f"})]))
    conv.append_user(Message("user", [ToolResultBlock("c1", "first")]))
    recorder.sync(conv)
    conv.lighten(2, Message("user", [ToolResultBlock("c1", "lighter")]))
    # Before the recorder looked, the turn was undone and another one made at the same place.
    conv.truncate(1)
    conv.append(Message("assistant", [ToolUseBlock("c2", "read_file", {"path": "g"})]))
    conv.append_user(Message("user", [ToolResultBlock("c2", "second")]))
    recorder.sync(conv)
    assert _dicts(load(recorder.writer.path).conversation) == _dicts(conv)


def test_the_state_is_written_when_it_changes_and_the_last_line_wins(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    conv = Conversation()
    recorder.keep_state({"extra_roots": ["/a"]})  # before the file exists: nothing
    assert not recorder.writer.path.exists()
    recorder.record(ev.TurnStarted("hi"), conv)
    recorder.keep_state({"extra_roots": ["/a"]})
    recorder.keep_state({"extra_roots": ["/a"]})  # unchanged: not written again
    recorder.keep_state({"extra_roots": ["/a", "/b"], "tools_loaded": ["mcp_x_y"]})
    lines = [json.loads(x) for x in recorder.writer.path.read_text().splitlines()]
    assert [line for line in lines if line["type"] == "state"] == [
        {"type": "state", "extra_roots": ["/a"]},
        {"type": "state", "extra_roots": ["/a", "/b"], "tools_loaded": ["mcp_x_y"]},
    ]
    loaded = load(recorder.writer.path)
    assert (loaded.saved_roots, loaded.saved_tools) == (["/a", "/b"], ["mcp_x_y"])


def test_an_edited_state_line_keeps_only_strings(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path)
    recorder.record(ev.TurnStarted("hi"), Conversation())
    with recorder.writer.path.open("a") as out:
        roots = ["/ok", 3, None, "", "x" * 5000, ["/nested"]]
        out.write(json.dumps({"type": "state", "extra_roots": roots, "tools_loaded": {}}) + "\n")
    loaded = load(recorder.writer.path)
    assert (loaded.saved_roots, loaded.saved_tools, loaded.skipped) == (["/ok"], [], 0)
