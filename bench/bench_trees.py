"""``agent-tui -p hello`` from two source trees, paired: the CPU a change saves (issue 23 item 3).

    .venv/bin/python bench/bench_trees.py OTHER_TREE [--runs 20]

OTHER_TREE is another checkout of the repository (``git archive main | tar -x -C DIR``, then
``python -m compileall -q DIR/agent_tui`` so both sides start from bytecode). Both sides run this
venv's interpreter as ``python -m agent_tui`` with ``PYTHONPATH`` naming their tree, each with its
own state dir (so each keeps its own dataclass code table, warmed by two unmeasured pairs), against
the fake LLM server in this process. The order within a pair alternates. Printed: the medians of
wall and CPU time (user + system of the child, from the kernel) of A (OTHER_TREE) and B (this
tree), the median of the pair-by-pair B/A ratios, and the load average before and after.
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
sys.path.insert(0, str(BENCH.parent))

from tests.fakes.llm_server import FakeLLM  # noqa: E402

Sample = tuple[float, float]  # (wall s, CPU s)


def hello(argv: list[str], env: dict[str, str], cwd: Path) -> Sample:
    """(wall, CPU) of one ``-p hello`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, capture_output=True, check=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def environments(tmp: str, trees: dict[str, Path]) -> dict[str, dict[str, str]]:
    """Each side's environment: this one without agent-tui settings, keys or PYTHONDONTWRITE-
    BYTECODE (an install runs from bytecode), its own home and state dir, its tree first."""
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENT_TUI_") and not k.endswith("_API_KEY")
    }
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    return {
        side: base
        | {
            "HOME": f"{tmp}/{side}",
            "AGENT_TUI_STATE_DIR": f"{tmp}/{side}/state",
            "OPENAI_API_KEY": "k",
            "PYTHONPATH": str(tree),
        }
        for side, tree in trees.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("other", type=Path, help="the tree to compare with (side A)")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    trees = {"A": args.other.resolve(), "B": BENCH.parent}
    print("load average before:", " ".join(f"{x:.2f}" for x in os.getloadavg()))
    with tempfile.TemporaryDirectory() as tmp, FakeLLM([{"text": "hi"}] * 10_000) as fake:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        envs = environments(tmp, trees)
        argv = [sys.executable, "-m", "agent_tui", "--provider", "openai"]
        argv += ["--base-url", fake.openai_url, "--model", "m", "-p", "hello"]
        pairs: list[tuple[Sample, Sample]] = []
        for index in range(args.runs + 2):  # the first two pairs fill the code tables
            order = ("A", "B") if index % 2 == 0 else ("B", "A")
            got = {side: hello(argv, envs[side], ws) for side in order}
            if index >= 2:
                pairs.append((got["A"], got["B"]))
    report(pairs, trees)
    print("load average after:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


def report(pairs: list[tuple[Sample, Sample]], trees: dict[str, Path]) -> None:
    print(f"A = {trees['A']}, B = {trees['B']}; {len(pairs)} pairs")
    print(f"{'':8}{'A':>10}{'B':>10}{'B/A (pair by pair)':>22}")
    for index, name in ((0, "wall s"), (1, "CPU s")):
        a = statistics.median(p[0][index] for p in pairs)
        b = statistics.median(p[1][index] for p in pairs)
        ratio = statistics.median(p[1][index] / p[0][index] for p in pairs)
        print(f"{name:8}{a:10.3f}{b:10.3f}{ratio:22.3f}")


if __name__ == "__main__":
    main()
