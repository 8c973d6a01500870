"""Benchmark: read_file's first page of a 100 MB file (target ≤ 50 ms, memory stays small).

Run: .venv/bin/python bench/bench_read_file.py
The file is generated once under /tmp and reused.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout, installed or not

from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import builtin_registry

SIZE = 100 * 1024 * 1024
CACHE = Path(tempfile.gettempdir()) / "agent-tui-bench-read"


def make_file() -> Path:
    """A 100 MB text file of varied source-like lines (built once, reused)."""
    path = CACHE / "big.txt"
    if path.exists() and path.stat().st_size >= SIZE:
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    block = "".join(
        f"    def method_{i}(self, value: int) -> int:  # line {i} of the repeated block\n"
        for i in range(1000)
    ).encode()
    with path.open("wb") as handle:
        written = 0
        while written < SIZE:
            handle.write(block)
            written += len(block)
    return path


def main() -> None:
    path = make_file()
    ctx = ToolContext(workspace=path.parent, session=SessionState())
    tool = builtin_registry().get("read_file")
    args = {"path": path.name}

    async def once() -> float:
        start = time.perf_counter()
        tool.prepare(args, ctx)
        result = await tool.invoke(args, ctx)
        elapsed = time.perf_counter() - start
        assert not result.is_error
        return elapsed

    async def run() -> None:
        times = [await once() for _ in range(15)]
        tracemalloc.start()
        await once()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        far = {"path": path.name, "start_line": 1_000_000, "end_line": 1_000_100}
        start = time.perf_counter()
        await tool.invoke(far, ctx)
        far_ms = (time.perf_counter() - start) * 1000
        size_mb = path.stat().st_size / 2**20
        print(f"file: {path} ({size_mb:.0f} MB)")
        print(
            f"read_file first page: median {statistics.median(times) * 1000:.1f} ms, "
            f"min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms (target ≤ 50 ms)"
        )
        print(
            f"peak Python memory during one call: {peak / 1024:.0f} KiB (file is {size_mb:.0f} MB)"
        )
        print(f"page at line 1,000,000 (scans ~80 MB): {far_ms:.1f} ms")

    asyncio.run(run())


if __name__ == "__main__":
    main()
