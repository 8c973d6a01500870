"""Benchmark: apply_patch of a 20-hunk patch on a 20,000-line file (target ≤ 50 ms).

Run: .venv/bin/python bench/bench_apply_patch.py
Times prepare() + invoke() through the tool class (parse, plan, write), median of 20 runs, on a
fresh copy of the file each time.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout, installed or not

from agent_tui.tools.base import SessionState, ToolContext  # noqa: E402
from agent_tui.tools.registry import builtin_registry  # noqa: E402

LINES = 20_000
HUNKS = 20


def source() -> list[str]:
    return [f"    value_{i} = compute({i}, factor={i % 7})  # step {i}" for i in range(LINES)]


def make_patch(lines: list[str]) -> str:
    body = ["*** Begin Patch", "*** Update File: big.py"]
    step = LINES // HUNKS
    for hunk in range(HUNKS):
        at = hunk * step + step // 2
        body.append(f"@@ {lines[at - 10].strip()}")
        body += [f" {line}" for line in lines[at - 3 : at]]
        body.append(f"-{lines[at]}")
        body.append(f"+{lines[at].replace('compute', 'compute_fast')}")
        body += [f" {line}" for line in lines[at + 1 : at + 4]]
    body.append("*** End Patch")
    return "\n".join(body) + "\n"


async def main() -> None:
    lines = source()
    text = "\n".join(lines) + "\n"
    args = {"input": make_patch(lines)}
    tool = builtin_registry().get("apply_patch")
    times: list[float] = []
    prepare_times: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        for _ in range(20):
            (workspace / "big.py").write_text(text)
            ctx = ToolContext(workspace=workspace, session=SessionState())
            start = time.perf_counter()
            tool.prepare(args, ctx)
            prepared = time.perf_counter()
            result = await tool.invoke(args, ctx)
            end = time.perf_counter()
            assert not result.is_error
            times.append(end - start)
            prepare_times.append(prepared - start)
        changed = (workspace / "big.py").read_text().count("compute_fast")
    assert changed == HUNKS, changed
    print(f"apply_patch: {HUNKS} hunks on a {LINES:,}-line file ({len(text) / 1024:.0f} KB)")
    print(
        f"prepare + invoke: median {statistics.median(times) * 1000:.1f} ms, "
        f"min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms (target ≤ 50 ms)"
    )
    print(
        f"  of which prepare (plan + diff for the confirmation): median {statistics.median(prepare_times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
