"""A running command's output reaches the client while it runs, throttled as the app's card is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import text_block

from agent_tui.acp.live_output import KEPT_CHARS, UPDATE_INTERVAL_S, LiveOutput
from tests.acp.acp_client import DEADLINE_S, RecordingClient, acp_agent
from tests.fakes.llm_server import FakeLLM
from tests.helpers import new_workspace

# Three lines a while apart: the first is out long before the command ends.
SLOW = "for i in 1 2 3; do echo line$i; sleep 0.5; done"
RUN = {"id": "t1", "name": "run_in_terminal", "input": {"command": SLOW}}


def _output(update: object) -> str:
    content = getattr(update, "content", None) or []
    return "".join(getattr(c.content, "text", "") for c in content if c.type == "content")


async def test_command_output_streams_while_it_runs(tmp_path: Path, fake_llm: FakeLLM) -> None:
    ws = new_workspace(tmp_path)
    fake_llm.set_script([{"tool_calls": [RUN]}, {"text": "Ran it."}])
    client = RecordingClient(answer="allow_once")
    async with acp_agent(ws, fake_llm, client, home=tmp_path) as conn:
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        reply = await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert reply.stop_reason == "end_turn"
    calls = client.of("tool_call_update")
    running = [_output(u) for u in calls if u.status == "in_progress" and _output(u)]
    # Seen before the command ended: line1 without line3, then more of it.
    assert any("line1" in out and "line3" not in out for out in running), running
    assert len(running) >= 2 and "line2" in running[-1]
    assert calls[-1].status == "completed" and "line3" in _output(calls[-1])


async def test_output_faster_than_the_interval_is_sent_at_most_twice() -> None:
    """A burst of chunks at one instant: the first goes out at once, the rest in one update
    when the interval has passed; nothing is sent after the call finished."""
    sent: list[tuple[str, str]] = []

    async def send(call_id: str, output: str) -> None:
        sent.append((call_id, output))

    now = 100.0
    live = LiveOutput(send, clock=lambda: now)
    for i in range(1000):
        await live.feed("c1", f"{i}\n")
    assert sent == [("c1", "0\n")]
    deadline = asyncio.get_running_loop().time() + DEADLINE_S
    while len(sent) < 2:
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(UPDATE_INTERVAL_S / 4)
    assert sent[1][1].endswith("998\n999\n") and sent[1][1].startswith("0\n1\n")
    await live.feed("c1", "late\n")  # the clock has not moved: scheduled, then dropped
    live.finish("c1")
    await asyncio.sleep(UPDATE_INTERVAL_S * 2)
    assert len(sent) == 2


async def test_long_output_keeps_its_end_and_says_what_was_cut() -> None:
    sent: list[str] = []

    async def send(call_id: str, output: str) -> None:
        sent.append(output)

    clock = iter(range(0, 1000, 1))
    live = LiveOutput(send, clock=lambda: float(next(clock)))
    await live.feed("c1", "a" * KEPT_CHARS)
    await live.feed("c1", "b" * 10)
    assert sent[-1] == f"… (10 earlier characters)\n{'a' * (KEPT_CHARS - 10)}{'b' * 10}"
