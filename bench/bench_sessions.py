"""Sessions (issue 12 §5): resuming a 2,000-message session, appending, and the file's size.

    .venv/bin/python bench/bench_sessions.py [--runs 5] [--rounds 300]

1. Appending: record a 2,000-message session (500 turns: prompt, read_file call, a 2 KB result,
   answer, with their events) through ``SessionRecorder``; time per message for the first and
   the last 400 messages (O(1): the two should match).
2. App: first paint of ``agent-tui`` (fresh) and ``agent-tui --continue`` (that session), in a
   pseudo-terminal with the demo model, alternating runs (bench_ui_first_frame's method).
3. Headless: ``agent-tui -p`` fresh and ``-p --continue`` on that session, scripted model,
   alternating runs.
4. Size: a real ``-p`` run of ``--rounds`` tool rounds against the fake LLM server; the session
   file's bytes against the bytes of its conversation (``Conversation.to_json()``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agent_tui import events as ev  # noqa: E402
from agent_tui.conversation import (  # noqa: E402
    Conversation,
    Message,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    user_text,
)
from agent_tui.providers.base import Usage  # noqa: E402
from agent_tui.sessions import SessionRecorder, SessionStore, load  # noqa: E402
from agent_tui.tools.base import Prepared, ToolResult  # noqa: E402
from bench.bench_ui_first_frame import launch_once  # noqa: E402

RESULT = "".join(f"{n:5d}  line {n} of a file the model read, some code here\n" for n in range(40))


def build_session(state: Path, workspace: Path, turns: int = 500) -> tuple[Path, list[float]]:
    """Record ``turns`` 4-message turns; returns the file and the seconds each message cost."""
    recorder = SessionRecorder(SessionStore(state, workspace).create("bench-model"))
    conv = Conversation()
    costs: list[float] = []

    def step(event: ev.Event) -> None:
        start = time.perf_counter()
        recorder.record(event, conv)
        costs.append(time.perf_counter() - start)

    for n in range(turns):
        prompt = f"turn {n}: look at module_{n}.py and explain what it does"
        step(ev.TurnStarted(prompt))
        conv.append_user(user_text(prompt))
        call = ToolUseBlock(f"call_{n}", "read_file", {"path": f"module_{n}.py"})
        conv.append(Message("assistant", [TextBlock("Reading it."), call]))
        prepared = Prepared(f"Reading module_{n}.py", f"Read module_{n}.py")
        step(ev.ToolCallStarted(call.id, call.name, call.input, prepared, "read"))
        step(ev.ToolCallDecided(call.id, True, "read-only", "read-only tool in the workspace"))
        step(ev.ToolCallFinished(call.id, call.name, ToolResult(RESULT), f"Read module_{n}.py"))
        conv.append_user(Message("user", [ToolResultBlock(call.id, RESULT)]))
        conv.append(Message("assistant", [TextBlock(f"module_{n}.py defines a parser. " * 8)]))
        usage = Usage(input_tokens=1000 + n, output_tokens=100)
        step(ev.UsageUpdated(usage, usage, None))
        step(ev.TurnFinished("done", "end_turn", 2, usage))
    recorder.close()
    return recorder.writer.path, costs


def env_for(state: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(AGENT_TUI_STATE_DIR=str(state), HOME=str(home), PYTHONPATH=str(ROOT))
    return env


def headless_once(cwd: Path, env: dict[str, str], script: Path, *extra: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "agent_tui", "--script", str(script), "-p", "next", *extra],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        stdin=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def size_run(base: Path, rounds: int) -> tuple[int, int]:
    from tests.fakes.llm_server import FakeLLM

    ws, state, home = base / "size-ws", base / "size-state", base / "size-home"
    for folder in (ws, state, home):
        folder.mkdir()
    (ws / "code.py").write_text(RESULT)
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"id": f"c{n}", "name": "read_file", "input": {"path": "code.py"}}]}
        for n in range(rounds)
    ]
    turns.append({"text": "read it many times"})
    with FakeLLM() as fake:
        fake.set_script(turns)
        env = {**env_for(state, home), "ANTHROPIC_API_KEY": "bench-key"}
        args = ["--provider", "anthropic", "--base-url", fake.url, "--model", "bench"]
        subprocess.run(
            [sys.executable, "-m", "agent_tui", *args, "-p", "go", "--max-turns", str(rounds + 5)],
            cwd=ws,
            env=env,
            check=True,
            capture_output=True,
            stdin=subprocess.DEVNULL,
        )
    [path] = list((state / "sessions").glob("*/*.jsonl"))
    conversation = load(path).conversation
    body = json.dumps(conversation.to_json(), ensure_ascii=False, separators=(",", ":"))
    return path.stat().st_size, len(body.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for name in ("ws", "fresh-ws", "state", "home"):
            (base / name).mkdir()
        path, costs = build_session(base / "state", base / "ws")
        messages = len(load(path).conversation.messages)
        per_event = len(costs) // 5
        first = statistics.median(costs[:per_event]) * 1e6
        last = statistics.median(costs[-per_event:]) * 1e6
        print(f"session: {messages} messages, {path.stat().st_size / 1e6:.2f} MB")
        print(f"record per event: first fifth median {first:.0f} µs, last fifth {last:.0f} µs")

        fresh_paint, cont_paint = [], []
        for _ in range(args.runs):
            fresh_paint.append(launch_once(base / "fresh-ws", base / "state", base / "home")[0])
            cont_paint.append(
                launch_once(base / "ws", base / "state", base / "home", ("--continue",))[0]
            )
        script = base / "script.json"
        script.write_text(json.dumps([{"text": "ok"}] * 1))
        env = env_for(base / "state", base / "home")
        fresh_p, cont_p = [], []
        for _ in range(args.runs):
            fresh_p.append(headless_once(base / "fresh-ws", env, script))
            cont_p.append(headless_once(base / "ws", env, script, "--continue"))
        print(f"app first paint, {args.runs} runs alternating (median, min-max):")
        for label, times in (("fresh", fresh_paint), ("--continue", cont_paint)):
            print(
                f"  {label:>10}: {statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f})"
            )
        print(
            f"  difference of medians: {statistics.median(cont_paint) - statistics.median(fresh_paint):+.3f} s"
        )
        print(f"-p, {args.runs} runs alternating (median, min-max):")
        for label, times in (("fresh", fresh_p), ("--continue", cont_p)):
            print(
                f"  {label:>10}: {statistics.median(times):.3f} s ({min(times):.3f}-{max(times):.3f})"
            )
        print(
            f"  difference of medians: {statistics.median(cont_p) - statistics.median(fresh_p):+.3f} s"
        )
        file_bytes, conv_bytes = size_run(base, args.rounds)
        print(
            f"{args.rounds}-round -p run: session file {file_bytes:,} bytes, conversation "
            f"{conv_bytes:,} bytes (ratio {file_bytes / conv_bytes:.2f})"
        )
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
