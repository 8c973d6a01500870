"""``sessions/timeline.turns_as_they_stand``: a session file's log read into the turns to show
(rewound turns gone, undone ones marked, interrupted ones marked), written through the real
``SessionRecorder`` and read back with ``load``."""

from __future__ import annotations

from pathlib import Path

from agent_tui import events as ev
from agent_tui.conversation import (
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.providers.base import Usage
from agent_tui.sessions import SessionRecorder, SessionStore, load
from agent_tui.sessions.timeline import (
    Line,
    prompts_as_typed,
    round_starts,
    turns_as_they_stand,
)
from agent_tui.tools.base import ToolResult


class Log:
    """Writes a session as the agent and the app do, one step at a time."""

    def __init__(self, tmp_path: Path) -> None:
        self.recorder = SessionRecorder(SessionStore(tmp_path / "state", tmp_path).create("m"))
        self.conv = Conversation()

    def turn(self, prompt: str, calls: int = 1, *, finish: bool = True) -> None:
        self.recorder.record(ev.TurnStarted(prompt), self.conv)
        self.conv.append_user(user_text(prompt))
        for n in range(calls):
            call = ToolUseBlock(f"{prompt}-{n}", "replace_string_in_file", {"path": "a.py"})
            self.conv.append(Message("assistant", [TextBlock(f"step {n}"), call]))
            self.recorder.record(
                ev.ToolCallStarted(call.id, call.name, {}, None, "edit"), self.conv
            )
            if not finish:
                return  # the app was killed here: nothing more is written
            self.recorder.record(
                ev.ToolCallFinished(call.id, call.name, ToolResult("ok")), self.conv
            )
            self.conv.append_user(Message("user", [ToolResultBlock(call.id, "ok")]))
        answer = f"done: {prompt}\nmore"  # the turn's last answer, as the agent ends a turn
        self.conv.append(Message("assistant", [TextBlock(answer)]))
        self.recorder.record(ev.TurnFinished(answer, "end_turn", calls + 1, Usage()), self.conv)

    def command(self, name: str, *extra: ev.Event) -> None:
        """A slash command as the app runs it: handled, its effect, its end."""
        self.recorder.record(ev.CommandHandled(name, "", None, {}), self.conv)
        for event in extra:
            self.recorder.record(event, self.conv)
        self.recorder.sync(self.conv)
        self.recorder.record(ev.TurnFinished("", "local_command", 0, Usage()), self.conv)

    def read(self) -> list[Line]:
        self.recorder.close()
        return list(load(self.recorder.writer.path).entries)


def test_turns_carry_their_prompt_calls_and_first_answer_line(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("one", calls=3)
    log.turn("two", calls=0)
    turns = turns_as_they_stand(log.read())
    assert [(t.prompt, t.calls, t.answer, t.finished, t.undone) for t in turns] == [
        ("one", 3, "done: one", True, False),
        ("two", 0, "done: two", True, False),
    ]
    assert turns[0].end == turns[1].start


def test_a_rewound_turn_is_gone_and_its_index_lends_no_prompt(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("kept")
    rewound_at = len(log.conv.messages)
    log.turn("rewound")
    log.turn("rewound too")
    log.conv.truncate(rewound_at)
    log.command("rewind", ev.ConversationRewound(rewound_at))
    log.turn("after")
    entries = log.read()
    assert [t.prompt for t in turns_as_they_stand(entries)] == ["kept", "after"]
    assert prompts_as_typed(entries) == {0: "kept", rewound_at: "after"}


def test_clear_leaves_only_what_came_after(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("old")
    log.conv.clear()
    log.command("clear")
    log.turn("new")
    assert [t.prompt for t in turns_as_they_stand(log.read())] == ["new"]


def test_a_turn_rewriting_its_own_tail_stays(tmp_path: Path) -> None:
    """An unanswered turn is taken out of the conversation by the agent (a rewind inside the
    turn): the turn still happened and is shown, as it was live."""
    log = Log(tmp_path)
    log.turn("answered")
    before = log.conv.checkpoint()
    log.recorder.record(ev.TurnStarted("unanswered"), log.conv)
    log.conv.append_user(user_text("unanswered"))
    log.recorder.sync(log.conv)
    log.conv.restore(before)
    log.recorder.record(ev.TurnFinished("", "error", 1, Usage()), log.conv)
    log.turn("next")
    turns = turns_as_they_stand(log.read())
    assert [t.prompt for t in turns] == ["answered", "unanswered", "next"]


def test_undo_marks_the_turn_it_names(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("first")
    second = len(log.conv.messages)
    log.turn("second")
    log.command("undo", ev.CheckpointRestored(("a.py",), None, (second,)))
    turns = turns_as_they_stand(log.read())
    assert [(t.prompt, t.undone) for t in turns] == [("first", False), ("second", True)]


def test_a_turn_without_its_end_is_interrupted(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("finished")
    log.turn("cut off", calls=2, finish=False)
    turns = turns_as_they_stand(log.read())
    assert [(t.prompt, t.interrupted, t.calls) for t in turns] == [
        ("finished", False, 1),
        ("cut off", True, 1),
    ]


def test_a_command_after_a_cut_off_turn_does_not_finish_it(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.turn("cut off", finish=False)
    log.command("help")
    [turn] = turns_as_they_stand(log.read())
    assert turn.interrupted


def test_after_a_compaction_a_rewind_cuts_by_the_new_indexes(tmp_path: Path) -> None:
    log = Log(tmp_path)
    for prompt in ("a", "b", "c"):
        log.turn(prompt)
    third = [i for i, m in enumerate(log.conv.messages) if m.text == "c"][0]
    log.conv.compact(third, "summary of a and b")
    log.recorder.record(
        ev.ConversationCompacted("summary of a and b", third, False, 9, 3), log.conv
    )
    log.turn("d")
    d_index = [i for i, m in enumerate(log.conv.messages) if m.text == "d"][0]
    log.conv.truncate(d_index)
    log.command("rewind", ev.ConversationRewound(d_index))
    assert [t.prompt for t in turns_as_they_stand(log.read())] == ["a", "b", "c"]


def test_rounds_of_parallel_calls_stay_together(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.recorder.record(ev.TurnStarted("parallel"), log.conv)
    log.conv.append_user(user_text("parallel"))
    for round_no in range(2):
        calls = [ToolUseBlock(f"r{round_no}c{n}", "read_file", {}) for n in range(2)]
        log.conv.append(Message("assistant", [TextBlock("go"), *calls]))
        for call in calls:
            log.recorder.record(ev.ToolCallStarted(call.id, call.name, {}, None, "read"), log.conv)
        for call in calls:
            log.recorder.record(ev.ToolCallFinished(call.id, call.name, ToolResult("x")), log.conv)
        log.conv.append_user(Message("user", [ToolResultBlock(c.id, "x") for c in calls]))
    entries = log.read()
    [turn] = turns_as_they_stand(entries)
    starts = round_starts(entries, turn.start + 1, turn.end)
    assert len(starts) == 2 and turn.calls == 4
