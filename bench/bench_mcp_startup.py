"""MCP and session start (issue 7): no servers configured costs nothing; servers never block.

Each figure is the median over fresh subprocesses (so imports are cold each time):
  * baseline: load the config and build the tool and command registries;
  * + MCP, no servers: the same plus ``create_mcp`` (whether the SDK and our MCP modules got imported);
  * + MCP, one server: time until ``start_all`` returns (the session may go on), until the
    server (mcp-server-time over stdio) is running with its tools registered, and the longest the
    event loop stalled meanwhile (the SDK is imported in a thread).

    .venv/bin/python bench/bench_mcp_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import asyncio, json, sys, time
t0 = time.perf_counter()
from pathlib import Path
from agent_tui.config import load_config
from agent_tui.commands.registry import CommandRegistry
from agent_tui.tools.registry import builtin_registry
mode, folder = sys.argv[1], Path(sys.argv[2])

async def main():
    config = load_config(folder, env={}, user_file=folder / "user.agentrc")
    tools, commands = builtin_registry(), CommandRegistry()
    out = {}
    if mode != "baseline":
        t1 = time.perf_counter()
        from agent_tui.mcp.session import create_mcp
        manager = create_mcp(config, tools, commands)
        out["create_mcp_s"] = time.perf_counter() - t1
        stall = [0.0]

        async def ticker():
            # The longest the event loop (the TUI) went without running while servers started.
            last = time.perf_counter()
            while True:
                await asyncio.sleep(0.005)
                now = time.perf_counter()
                stall[0] = max(stall[0], now - last - 0.005)
                last = now

        tick = asyncio.create_task(ticker())
        if manager is not None:
            manager.start_all()
        out["start_all_returned_s"] = time.perf_counter() - t0
        if manager is not None:
            await manager.wait_started(60)
            out["server_running_s"] = time.perf_counter() - t0
            out["tools"] = sum(1 for m in tools.manifests() if m.source.startswith("mcp:"))
            out["max_loop_stall_s"] = stall[0]
            await manager.aclose()
        tick.cancel()
    out["total_s"] = time.perf_counter() - t0
    out["mcp_imported"] = "mcp" in sys.modules
    out["mcp_modules"] = sum(m.startswith("agent_tui.mcp.") for m in sys.modules)
    print(json.dumps(out))

asyncio.run(main())
"""


def run(mode: str, folder: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AGENT_TUI_STATE_DIR": str(folder / "state")}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        empty, one = Path(tmp) / "empty", Path(tmp) / "one"
        for folder in (empty, one):
            folder.mkdir()
            (folder / "user.agentrc").write_text("")
        (one / "user.agentrc").write_text(
            f'[mcp.servers.time]\ncommand = "{sys.executable}"\n'
            'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\n'
        )
        cases = [("baseline", "baseline", empty), ("+ MCP, no servers", "mcp", empty)]
        cases.append(("+ MCP, one stdio server", "mcp", one))
        for label, mode, folder in cases:
            results = [run(mode, folder) for _ in range(runs)]
            keys = [k for k in results[0] if k != "mcp_imported"]
            figures = ", ".join(f"{k} {statistics.median(r[k] for r in results):.3f}" for k in keys)
            print(f"{label:26} {figures}, mcp imported: {results[0]['mcp_imported']}")


if __name__ == "__main__":
    main()
