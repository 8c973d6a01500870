"""Saved sessions of a given shape, written as the agent writes them (``SessionRecorder``).

Used by the resume tests and by ``bench/bench_resume.py``: ``turns`` turns of ``calls`` tool
rounds each (a call of ``read_file`` or ``replace_string_in_file``, its result, then the answer).
A shape's message count is ``turns * (2 + 2 * calls)``: 2,500 x 1 is 10,000 messages.
"""

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
from agent_tui.sessions import SessionRecorder, SessionStore
from agent_tui.tools.base import Prepared, ToolResult

RESULT = "".join(f"{n:4d}  line {n} of a file the model read\n" for n in range(20))
DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-old line\n+new line\n context"


def _round(recorder: SessionRecorder, conv: Conversation, turn: int, n: int) -> None:
    call_id = f"t{turn}c{n}"
    edit = n % 5 == 4
    name = "replace_string_in_file" if edit else "read_file"
    args = {"path": f"mod_{n}.py"} if not edit else {"path": "app.py", "old_string": "old"}
    conv.append(Message("assistant", [TextBlock(f"Step {n}."), ToolUseBlock(call_id, name, args)]))
    prepared = Prepared(f"Reading mod_{n}.py", f"Read mod_{n}.py")
    recorder.record(
        ev.ToolCallStarted(call_id, name, args, prepared, "edit" if edit else "read"), conv
    )
    recorder.record(ev.ToolCallDecided(call_id, True, "read-only", "read-only tool"), conv)
    result = ToolResult(RESULT, display=DIFF if edit else None)
    recorder.record(ev.ToolCallFinished(call_id, name, result, f"Read mod_{n}.py", 0.1), conv)
    conv.append_user(Message("user", [ToolResultBlock(call_id, RESULT)]))
    usage = Usage(input_tokens=1000 + n, output_tokens=50)
    recorder.record(ev.UsageUpdated(usage, usage, None), conv)


def record_shape(state: Path, workspace: Path, turns: int, calls: int) -> Path:
    """Write a session of ``turns`` turns with ``calls`` tool rounds each; returns its file."""
    recorder = SessionRecorder(SessionStore(state, workspace).create("shape-model"))
    conv = Conversation()
    for turn in range(turns):
        prompt = f"question {turn}: look at the modules and fix app.py"
        recorder.record(ev.TurnStarted(prompt), conv)
        conv.append_user(user_text(prompt))
        for n in range(calls):
            _round(recorder, conv, turn, n)
        answer = f"answer {turn}: the modules are fine.\n\nMore **detail** here:\n\n- one\n- two\n"
        conv.append(Message("assistant", [TextBlock(answer)]))
        recorder.record(ev.TurnFinished(answer, "end_turn", calls + 1, Usage()), conv)
    recorder.close()
    return recorder.writer.path
