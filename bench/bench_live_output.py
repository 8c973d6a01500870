"""A command that prints a lot (``seq 1 200000``): what does drawing its live output cost a turn?

The same run_in_terminal call (a real subprocess, the scripted provider, ``--yolo`` approvals) is
run through the agent alone (events consumed, nothing drawn: what ``-p`` pays) and through the app
(headless 100x32, the tool card drawing the live tail). The runs alternate, ``--runs`` of each.
Reports the turn's wall time, the output events the card received and how often it redrew its tail.

    .venv/bin/python bench/bench_live_output.py [--lines 200000] [--writes blocks|lines] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ui_common import scripted_agent, temp_env  # noqa: E402


def command(lines: int, writes: str) -> str:
    """``seq`` writes in 4 KiB blocks; the shell loop makes one write(2) per line."""
    if writes == "lines":
        return f"i=0; while [ $i -lt {lines} ]; do i=$((i+1)); echo line $i; done"
    return f"seq 1 {lines}"


def turns(shell_command: str) -> list[dict[str, Any]]:
    call = {"id": "c1", "name": "run_in_terminal", "input": {"command": shell_command}}
    return [{"tool_calls": [call]}, {"text": "done"}]


def agent_for(base: Path, shell_command: str) -> Any:
    agent = scripted_agent(base, turns(shell_command))
    agent.deps.approvals.yolo = True  # the bench measures output, not the approval dialog
    return agent


async def without_card(base: Path, shell_command: str) -> tuple[float, float, int]:
    from agent_tui import events as ev

    agent = agent_for(base, shell_command)
    deltas = 0
    t0, cpu0 = time.perf_counter(), time.process_time()
    async for event in agent.run("go"):
        deltas += isinstance(event, ev.ToolOutputDelta)
    return time.perf_counter() - t0, time.process_time() - cpu0, deltas


async def with_card(base: Path, shell_command: str) -> tuple[float, float, int, int]:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.widgets.tool_card import ToolCard

    app = AgentApp(agent_for(base, shell_command), workspace_label="~/bench")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        t0, cpu0 = time.perf_counter(), time.process_time()
        await app.submit("go")
        assert app.turn_worker is not None
        await app.turn_worker.wait()
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        card = app.query_one(ToolCard)
        live = getattr(card, "live", None)
        received = live.chunks if live is not None else -1
        redraws = live.redraws if live is not None else -1
        assert card.state.status == "done", card.state
    return wall, cpu, received, redraws


async def run(lines: int, writes: str, runs: int) -> None:
    base = temp_env()
    shell_command = command(lines, writes)
    bare: list[tuple[float, float]] = []
    drawn: list[tuple[float, float]] = []
    counts: list[tuple[int, int, int]] = []
    for _ in range(runs):
        wall, cpu, deltas = await without_card(base, shell_command)
        bare.append((wall, cpu))
        wall, cpu, received, redraws = await with_card(base, shell_command)
        drawn.append((wall, cpu))
        counts.append((deltas, received, redraws))
    print(f"`{shell_command}` through run_in_terminal, {runs} runs of each, alternating")
    print("  turn wall time and this process's CPU time (the command's own CPU is not counted):")
    print(f"  agent alone (no card): {fmt(bare)}")
    print(f"  app with the card:     {fmt(drawn)}")
    for deltas, received, redraws in counts:
        print(f"  output events {deltas} (no card) / {received} (card); tail redraws {redraws}")
    print(f"  load average {os.getloadavg()[0]:.2f}")


def fmt(runs: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    each = ", ".join(f"{w:.2f}/{c:.2f}" for w, c in runs)
    return f"median wall {wall:.2f} s, CPU {cpu:.2f} s  (each wall/CPU: {each})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--writes", choices=["blocks", "lines"], default="blocks")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(run(args.lines, args.writes, args.runs))


if __name__ == "__main__":
    main()
