"""Start-up with and without the kept dataclass code (``agent_tui/code_cache.py``), paired.

    .venv/bin/python bench/bench_code_cache.py [--runs 10] [--cases hello,start]

Each case alternates a run with the table (warm: a first pair fills it) and a run with
``AGENT_TUI_NO_CODE_CACHE=1``, against the fake LLM server in this process: ``hello`` is
``agent-tui -p hello`` as a whole process (CPU = user + system of the child, from the kernel);
``start`` is the TUI from spawn to its empty prompt drawn in a pty (``bench/pty_start.py``; CPU until
it is killed just after). Printed per case: the medians with and without, and the median of the
pair-by-pair ratios, with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import pty_start  # noqa: E402  (bench/, beside this script)

from tests.fakes.llm_server import FakeLLM  # noqa: E402

AGENT = str(Path(sys.executable).with_name("agent-tui"))


def hello(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall, CPU) of one ``-p hello`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([*argv, "-p", "hello"], env=env, cwd=cwd, capture_output=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def start(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(spawn -> prompt drawn, CPU) of the TUI."""
    shown = pty_start.time_to_prompt(argv, env, cwd, "Ask anything")
    return shown.prompt_s, shown.cpu_s


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--cases", default="hello,start")
    args = parser.parse_args()
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as tmp, FakeLLM([{"text": "hi"}] * 10_000) as fake:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        env = {**os.environ, "HOME": tmp, "AGENT_TUI_STATE_DIR": f"{tmp}/state"}
        env |= {"OPENAI_API_KEY": "k", "TERM": "xterm-256color"}
        env.pop("AGENT_TUI_NO_CODE_CACHE", None)
        off = {**env, "AGENT_TUI_NO_CODE_CACHE": "1"}
        argv = [AGENT, "--provider", "openai", "--base-url", fake.openai_url, "--model", "m"]
        for case in args.cases.split(","):
            run = hello if case == "hello" else start
            run(argv, env, ws), run(argv, off, ws)  # warm-up: the table is filled here
            pairs = [(run(argv, env, ws), run(argv, off, ws)) for _ in range(args.runs)]
            report(case, pairs)
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


def report(case: str, pairs: list[tuple[tuple[float, float], tuple[float, float]]]) -> None:
    print(f"\n[{case}] {len(pairs)} pairs   with table   without    ratio (pair by pair)")
    for index, name in ((0, "wall s"), (1, "CPU s")):
        with_ = statistics.median(a[index] for a, _ in pairs)
        without = statistics.median(b[index] for _, b in pairs)
        ratio = statistics.median(a[index] / b[index] for a, b in pairs)
        print(f"  {name:8}            {with_:8.3f}  {without:8.3f}    {ratio:.2f}")


if __name__ == "__main__":
    main()
