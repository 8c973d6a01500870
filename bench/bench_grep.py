"""Benchmark: grep_search (through the tool class) vs running ``rg`` directly, same query.

Run: .venv/bin/python bench/bench_grep.py [--files N]
A tree of N (default 50,000) source-like files is generated once under /tmp and reused. Each
query runs 9 times per side, alternating, after a warm-up; medians are compared (target: tool ≤ 1.3× rg).
"direct rg" is the plain command a user would type: `rg -n -F -i QUERY` (or `rg -n -i -e REGEX`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from a checkout, installed or not

from agent_tui.tools.base import SessionState, ToolContext  # noqa: E402
from agent_tui.tools.fs_walk import find_rg  # noqa: E402
from agent_tui.tools.registry import builtin_registry  # noqa: E402

WORDS = "alpha beta gamma delta value index result config handler parse render update".split()
QUERIES = [
    ("rare literal", {"query": "needle_7f3a"}, ["-F", "needle_7f3a"]),
    ("moderate literal", {"query": "parse_config_20(render)"}, ["-F", "parse_config_20(render)"]),
    ("common literal (capped)", {"query": "result"}, ["-F", "result"]),
    ("regex", {"query": r"def parse_\w+\(", "is_regexp": True}, ["-e", r"def parse_\w+\("]),
    (
        "literal + include",
        {"query": "handler", "include_pattern": "*.md"},
        ["-F", "-g", "*.md", "handler"],
    ),
]


def make_tree(count: int) -> Path:
    root = Path(tempfile.gettempdir()) / f"agent-tui-bench-grep-{count}"
    marker = root / ".complete"
    if marker.exists():
        return root
    rng = random.Random(42)
    for i in range(count):
        folder = root / f"pkg{i // 500:03}" / f"mod{i // 50 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for j in range(40):
            a, b = rng.choice(WORDS), rng.choice(WORDS)
            lines.append(
                f"def parse_{a}_{j}({b}):  # {a} {b}" if j % 10 == 0 else f"    {a}_{j} = {b}({j})"
            )
        if i % 5000 == 0:
            lines.append("needle_7f3a = True")
        if i % 25 == 0:
            lines.append("    return result")
        suffix = ".md" if i % 20 == 0 else ".py"
        (folder / f"file{i}{suffix}").write_text("\n".join(lines) + "\n")
    (root / ".gitignore").write_text("*.log\n")
    marker.write_text("")
    return root


def median_times(
    first: Callable[[], None], second: Callable[[], None], runs: int = 9
) -> tuple[float, float]:
    """Median seconds of each action, run alternately so that machine load hits both alike."""
    first(), second()  # warm-up
    samples: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for action, bucket in ((first, samples[0]), (second, samples[1])):
            start = time.perf_counter()
            action()
            bucket.append(time.perf_counter() - start)
    return statistics.median(samples[0]), statistics.median(samples[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=50_000)
    args = parser.parse_args()
    rg = find_rg()
    if rg is None:
        sys.exit("ripgrep not found: install the `ripgrep` package")
    started = time.perf_counter()
    root = make_tree(args.files)
    print(f"tree: {root} ({args.files:,} files; ready in {time.perf_counter() - started:.1f} s)")
    tool = builtin_registry().get("grep_search")
    ctx = ToolContext(workspace=root, session=SessionState())
    loop = asyncio.new_event_loop()
    print(f"{'query':<26}{'tool':>10}{'rg':>10}{'ratio':>8}   matches")
    for label, tool_args, rg_args in QUERIES:

        def via_tool(tool_args: dict[str, object] = tool_args) -> None:
            tool.prepare(tool_args, ctx)
            loop.run_until_complete(tool.invoke(tool_args, ctx))

        def via_rg(rg_args: list[str] = rg_args) -> None:
            subprocess.run([rg, "-n", "-i", *rg_args], cwd=root, capture_output=True, check=False)

        ours, theirs = median_times(via_tool, via_rg)
        result = loop.run_until_complete(tool.invoke(tool_args, ctx))
        head = result.content.splitlines()[0]
        print(
            f"{label:<26}{ours * 1000:>8.0f}ms{theirs * 1000:>8.0f}ms{ours / theirs:>7.2f}x   {head}"
        )
    loop.close()
    print(
        "Capped rows: the tool stops rg once it has 1000 matches (it shows at most 500), while "
        "direct rg prints every match; their ratio is not like-for-like. The uncapped rows are."
    )


if __name__ == "__main__":
    main()
