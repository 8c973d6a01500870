"""The sandbox's cost and what it saves (issue 21): per-command overhead, and approval questions.

1. Overhead: the same command (`true`, and a short `ls | wc -l`) started through the terminal's
   own ``spawn`` plain and inside the sandbox, alternating run by run (so both see the same load),
   ≥ 30 pairs; the median of each and of the pair-by-pair difference. Two sandboxed variants: with
   the network proxy and its bridge (the default), and with ``[sandbox] network = false``.
2. Questions: 30 everyday commands (tests, build, grep, git status/diff, python scripts) decided
   by the real approval engine with the default settings, sandbox off and on: how many ask.

    .venv/bin/python bench/bench_sandbox.py [--pairs 40]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.sandbox.policy import build_policy  # noqa: E402
from agent_tui.sandbox.runtime import Sandbox  # noqa: E402
from agent_tui.tools.terminal_process import spawn  # noqa: E402

EVERYDAY = [
    "pytest -q",
    "python -m pytest tests/test_app.py -x",
    "npm test",
    "npm run build",
    "make",
    "cargo build",
    "go test ./...",
    "ls -la",
    "ls src",
    "cat README.md",
    "head -50 src/app.py",
    "grep -rn 'TODO' src",
    "rg -n 'def main' .",
    "find . -name '*.py' | wc -l",
    "git status",
    "git status --short",
    "git diff",
    "git diff --stat HEAD~1",
    "git log --oneline -10",
    "git show HEAD",
    "python scripts/gen.py",
    "python -c 'import sys; print(sys.version)'",
    "./scripts/lint.sh",
    "ruff check .",
    "mypy src",
    "wc -l src/*.py",
    "mkdir -p build && cp src/app.py build/",
    "sed -n '1,40p' src/app.py",
    "tree -L 2",
    "pip list",
]


async def _run(command: str, sandbox: Sandbox | None, cwd: Path) -> float:
    t0 = time.perf_counter()
    proc, log = await spawn(command, shell="/bin/sh", cwd=cwd, label="bench", sandbox=sandbox)
    await proc.exited.wait()
    await proc.closed.wait()
    if proc.launch is not None:
        await proc.launch.finish()
    elapsed = time.perf_counter() - t0
    log.unlink(missing_ok=True)
    return elapsed


async def overhead(pairs: int, command: str, cwd: Path) -> None:
    policy = build_policy(None, cwd)
    variants = {
        "sandbox + proxy": Sandbox(policy),
        "sandbox, network = false": Sandbox(replace(policy, network=False)),
    }
    if not Sandbox(policy).active:
        print(f"sandbox unavailable here: {Sandbox(policy).notice()}")
        return
    for name, sandbox in variants.items():
        plain: list[float] = []
        boxed: list[float] = []
        for _ in range(3):  # warm-up
            await _run(command, None, cwd)
            await _run(command, sandbox, cwd)
        for _ in range(pairs):
            plain.append(await _run(command, None, cwd))
            boxed.append(await _run(command, sandbox, cwd))
        await sandbox.aclose()
        diffs = [b - p for p, b in zip(plain, boxed, strict=True)]
        print(
            f"  {command!r:22} {name:26} plain {statistics.median(plain) * 1e3:6.1f} ms  "
            f"sandboxed {statistics.median(boxed) * 1e3:6.1f} ms  "
            f"overhead median {statistics.median(diffs) * 1e3:5.1f} ms "
            f"(p10 {statistics.quantiles(diffs, n=10)[0] * 1e3:.1f}, "
            f"p90 {statistics.quantiles(diffs, n=10)[-1] * 1e3:.1f}) over {pairs} pairs"
        )


def questions(cwd: Path) -> None:
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.config import load_config
    from agent_tui.tools.base import Prepared
    from agent_tui.tools.registry import builtin_registry

    manifest = builtin_registry().manifest("run_in_terminal")
    config = load_config(cwd, cli={}, user_file=cwd / "no-user-config")
    counts = {}
    for mode in ("off", "workspace-write"):
        engine = ApprovalEngine(config, cwd, state_dir=cwd / "state")
        engine.sandbox = Sandbox(build_policy(config, cwd, mode=mode))
        asked = [
            c
            for c in EVERYDAY
            if engine.decide(manifest, {"command": c}, Prepared("", "", paths=(cwd,))).action
            == "ask"
        ]
        counts[mode] = len(asked)
        print(f"  sandbox {mode:16} {len(asked):2} of {len(EVERYDAY)} commands ask")
    if counts["off"]:
        print(f"  fewer questions: {1 - counts['workspace-write'] / counts['off']:.0%}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=40)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        os.environ.setdefault("AGENT_TUI_STATE_DIR", str(cwd / "state"))
        print("Per-command overhead (spawn → exit → pipe closed):")
        for command in ("true", "ls /usr | wc -l"):
            asyncio.run(overhead(args.pairs, command, cwd))
        print("Approval questions, 30 everyday commands, default settings:")
        questions(cwd)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
