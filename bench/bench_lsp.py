"""Diagnostics after edits: the time from an edit to its diagnostics, per language server.

For each server (basedpyright and ruff from the dev extra, found beside this Python), a fresh
``LspManager`` in a temp workspace: the first edit of a file (the server starts, the old text is
checked, then the new one), then ``--edits`` edits that alternately add a type error and fix it
(``didChange`` to ``publishDiagnostics`` for that version). Prints median (min–max) and the load
average before and after; the figures are wall time of this process, which waits on the server.

    .venv/bin/python bench/bench_lsp.py [--edits 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.lsp.config import LspSettings, ServerSpec  # noqa: E402
from agent_tui.lsp.manager import LspManager  # noqa: E402

BIN = Path(sys.executable).parent
SERVERS = {
    "basedpyright": ["basedpyright-langserver", "--stdio"],
    "ruff": ["ruff", "server"],
}
# A file of some size, so the check is not of an empty module.
BODY = "".join(f"def f{n}(x: int) -> int:\n    return x + {n}\n\n" for n in range(200))
BROKEN = {"basedpyright": 'y: int = "no"\n', "ruff": "import os\n"}


async def _edit(manager: LspManager, path: Path, text: str) -> tuple[float, str]:
    before = manager.before_edit([path])
    path.write_text(text)
    t0 = time.perf_counter()
    report, _ = await manager.after_edit([path], before)
    return time.perf_counter() - t0, report


async def _measure(name: str, edits: int) -> tuple[float, list[float]]:
    program = shutil.which(SERVERS[name][0], path=str(BIN))
    if program is None:
        raise SystemExit(f"{SERVERS[name][0]} is not installed (scripts/setup.sh dev)")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        path = workspace / "m.py"
        path.write_text(BODY)
        spec = ServerSpec(name, (program, *SERVERS[name][1:]), ("*.py",))
        manager = LspManager(LspSettings((spec,), wait_s=30, start_s=60), workspace)
        try:
            first, report = await _edit(manager, path, BODY + BROKEN[name])
            assert report, f"{name}: the first edit reported nothing"
            times = []
            for n in range(edits):
                broken = n % 2 == 1
                took, report = await _edit(manager, path, BODY + (BROKEN[name] if broken else ""))
                assert bool(report) == broken, (name, n, report)
                times.append(took)
        finally:
            await manager.aclose()
    return first, times


def _load() -> str:
    return (
        " ".join(Path("/proc/loadavg").read_text().split()[:3])
        if os.path.exists("/proc/loadavg")
        else "n/a"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=20)
    args = parser.parse_args()
    print(f"load average before: {_load()}")
    for name in SERVERS:
        first, times = asyncio.run(_measure(name, args.edits))
        median = statistics.median(times) * 1000
        print(
            f"{name}: first edit (start + old + new) {first * 1000:.0f} ms; "
            f"edit -> diagnostics median {median:.0f} ms "
            f"({min(times) * 1000:.0f}-{max(times) * 1000:.0f}, {len(times)} edits)"
        )
    print(f"load average after: {_load()}")


if __name__ == "__main__":
    main()
