"""Benchmark: 1 MB of streamed tool-call arguments in 11-byte deltas (target < 0.2 s).

Run: .venv/bin/python bench/bench_tool_args.py [--runs 5]
A ``create_file`` call whose JSON arguments are 1 MB arrives as ~95,000 wire events of 11 bytes
each (Anthropic ``input_json_delta`` events, OpenAI ``tool_calls`` chunks). Each run feeds them
through the API's reducer, the round assembler and the call-progress tracker (the loop's work per
fragment), then parses the finished call; it prints the median and range per API.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout, installed or not

from agent_tui.agent.assemble import RoundAssembler  # noqa: E402
from agent_tui.agent.call_progress import CallProgress  # noqa: E402
from agent_tui.providers.anthropic_reduce import AnthropicReducer  # noqa: E402
from agent_tui.providers.openai_reduce import OpenAIReducer  # noqa: E402

DELTA = 11
SIZE = 1_000_000


def arguments() -> str:
    line = "    result = compute(value, factor=3)  # a line of generated code\n"
    content = (line * (SIZE // len(line) + 1))[: SIZE - 40]
    return json.dumps({"path": "src/app.py", "content": content})


def pieces(text: str) -> Iterator[str]:
    return (text[at : at + DELTA] for at in range(0, len(text), DELTA))


def anthropic_events(text: str) -> Iterator[dict[str, Any]]:
    yield {"type": "message_start", "message": {"usage": {"input_tokens": 10}}}
    block = {"type": "tool_use", "id": "toolu_1", "name": "create_file", "input": {}}
    yield {"type": "content_block_start", "index": 0, "content_block": block}
    for piece in pieces(text):
        delta = {"type": "input_json_delta", "partial_json": piece}
        yield {"type": "content_block_delta", "index": 0, "delta": delta}
    yield {"type": "content_block_stop", "index": 0}
    yield {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}}
    yield {"type": "message_stop"}


def openai_events(text: str) -> Iterator[dict[str, Any]]:
    first = {"index": 0, "id": "call_1", "function": {"name": "create_file", "arguments": ""}}
    yield {"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]}
    for piece in pieces(text):
        call = {"index": 0, "function": {"arguments": piece}}
        yield {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}
    yield {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}


def run_once(
    events: list[dict[str, Any]], make_reducer: Callable[[], Any], text: str
) -> tuple[float, float]:
    """Wall and CPU seconds of one pass (CPU time is steadier on a shared, loaded machine)."""
    start, start_cpu = time.perf_counter(), time.process_time()
    reducer = make_reducer()
    assembler = RoundAssembler()
    progress = CallProgress()
    updates = 0
    for event in events:
        for provider_event in reducer.feed(event):
            assembler.feed(provider_event)
            updates += progress.feed(provider_event) is not None
    for provider_event in reducer.finish():
        assembler.feed(provider_event)
    calls = assembler.finished_calls()
    elapsed = time.perf_counter() - start, time.process_time() - start_cpu
    assert len(calls) == 1 and calls[0].arguments == text and calls[0].input is not None
    assert updates >= 1  # the call's start, at least
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    text = arguments()
    print(f"arguments: {len(text):,} bytes in {len(text) // DELTA + 1:,} deltas of {DELTA} bytes")
    for api, make_events, make_reducer in (
        ("anthropic", anthropic_events, AnthropicReducer),
        ("openai", openai_events, OpenAIReducer),
    ):
        events = list(make_events(text))  # built before timing: the wire's cost is not ours
        runs = [run_once(events, make_reducer, text) for _ in range(args.runs)]
        wall, cpu = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"{api:9}  reducer + assembler + progress + parse: median {statistics.median(wall):.3f} s"
            f" (min {min(wall):.3f}, max {max(wall):.3f}), CPU {statistics.median(cpu):.3f} s;"
            f" {args.runs} runs, target < 0.2 s"
        )


if __name__ == "__main__":
    main()
