"""Resuming sessions of any shape against a fresh start: first paint, typing, peak memory.

Shapes (tests/sessions/shapes.py): 2,500 turns of one call (10,000 messages), 40 turns of 25
calls, one turn of 1,000 calls. For each shape, ``--runs`` pairs alternate a fresh start and
``--continue`` of that session, each in its own process (so peak RSS is the run's own):
first paint = app start to the first frame written after the app's mount (the session file
read included), in wall time and in this process's CPU time (paint_cpu: steadier on a loaded
machine);
typing = key press -> the prompt shows it (median of 20, while a resumed session's conversation
is parsed after the paint); peak RSS = VmHWM of the process, once that conversation is whole;
ready = app start to the conversation complete (after the typing: an upper bound).

    .venv/bin/python bench/bench_resume.py [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHAPES = {"10000 messages": (2500, 1), "40 x 25 calls": (40, 25), "1 x 1000 calls": (1, 1000)}


async def _child(turns: int, calls: int, resume: bool) -> dict[str, float]:
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    from _ui_common import scripted_agent, temp_env
    from bench_ui_transcript import keypress_latency

    from tests.sessions.shapes import record_shape

    base = temp_env()
    record_shape(base / "state", (base / "ws").resolve(), turns, calls)
    from agent_tui.agent.resume import attach_app
    from agent_tui.ui.app import AgentApp

    agent = scripted_agent(base, [])
    start, cpu = time.perf_counter(), time.process_time()
    session = attach_app(agent, cont=resume, resume_id=None)
    app = AgentApp(agent, session=session)
    painted = _first_frame(app)
    async with app.run_test(size=(100, 32)) as pilot:
        paint_at, paint_cpu_at = await painted
        paint, paint_cpu = paint_at - start, paint_cpu_at - cpu
        await pilot.pause()
        typing = statistics.median(await keypress_latency(app, 20))
        await agent.history_ready()  # the conversation parsed after the paint: in the peak
        ready = time.perf_counter() - start
        widgets = len(list(app.query("*")))
    peak = peak_rss_mib()
    return {
        "paint": paint,
        "paint_cpu": paint_cpu,
        "typing": typing,
        "peak": peak,
        "widgets": widgets,
        "ready": ready,
    }


def _first_frame(app: Any) -> asyncio.Future[tuple[float, float]]:
    """When (wall, CPU) the first frame after the app's mount (which draws a resumed session)
    is written to the terminal: the app's ``_display``, wrapped."""
    painted: asyncio.Future[tuple[float, float]] = asyncio.get_running_loop().create_future()
    mounted, display, on_mount = [False], app._display, type(app).on_mount

    async def mount(self: Any) -> None:  # on the class: Textual dispatches by class
        await on_mount(self)
        mounted[0] = True

    def frame(screen: Any, renderable: Any) -> None:
        display(screen, renderable)
        if mounted[0] and not painted.done():
            painted.set_result((time.perf_counter(), time.process_time()))

    type(app).on_mount, app._display = mount, frame
    return painted


def peak_rss_mib() -> float:
    """This process's peak RSS: VmHWM, of this program's memory only. (``ru_maxrss`` also
    counts the parent's memory when the child was started by vfork+exec, as subprocess does:
    a child of a 55 MiB pytest "peaked" at 55 MiB.)"""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / (1 << 20 if sys.platform == "darwin" else 1024)  # bytes there, KiB here


def _run(turns: int, calls: int, resume: bool) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(turns), str(calls), str(int(resume))],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=3, type=int)
    args = parser.parse_args()
    if args.child:
        turns, calls, resume = args.child
        print(json.dumps(asyncio.run(_child(turns, calls, bool(resume)))))
        return
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    for label, (turns, calls) in SHAPES.items():
        fresh, cont = [], []
        for _ in range(args.runs):
            fresh.append(_run(turns, calls, False))
            cont.append(_run(turns, calls, True))
        print(f"{label} ({args.runs} pairs, medians; fresh vs --continue):")
        for key, unit, scale in (
            ("paint", "s", 1),
            ("paint_cpu", "s", 1),
            ("typing", "ms", 1000),
            ("peak", "MiB", 1),
            ("ready", "s", 1),
        ):
            a = statistics.median(r[key] for r in fresh) * scale
            b = statistics.median(r[key] for r in cont) * scale
            print(f"  {key:>7}: {a:.3f} vs {b:.3f} {unit} ({b - a:+.3f}, {b / a:.2f}x)")
        print(f"  widgets: {fresh[0]['widgets']:.0f} vs {cont[0]['widgets']:.0f}")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
