"""Whole-process figures for the spine (issue 2): --version, -p hello, one read_file round.

Runs `agent-tui` as a subprocess against the fake LLM server on 127.0.0.1 (so all time is the
client's), on both APIs, and prints medians of wall time and peak RSS, plus the size of the first
request's system prompt + tool schemas.

    .venv/bin/python bench/bench_spine.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AGENT = str(Path(sys.executable).parent / "agent-tui")

HELLO = [{"text": "Hello! How can I help?"}]
READ_ROUND = [
    {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "main.py"}}]},
    {"text": "main.py prints a greeting."},
]


def _post(url: str, body: object) -> None:
    req = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    urllib.request.urlopen(req).read()


def _run(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of one run, from the kernel's accounting of the child."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{cmd} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return wall, usage.ru_maxrss / 1024


def measure(
    label: str, cmd: list[str], env: dict[str, str], cwd: Path, runs: int, before: object = None
) -> None:
    walls, rss = [], []
    for i in range(runs + 1):
        if before is not None:
            before()  # type: ignore[operator]
        wall, peak = _run(cmd, env, cwd)
        if i:  # the first run warms caches and is not counted
            walls.append(wall)
            rss.append(peak)
    print(
        f"{label:<44} median {statistics.median(walls):6.3f} s   "
        f"min {min(walls):6.3f}   max {max(walls):6.3f}   peak RSS {statistics.median(rss):5.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    work = Path(tempfile.mkdtemp(prefix="agent-bench-"))
    (work / "main.py").write_text('print("hello")\n')
    script = work / "script.json"
    script.write_text(json.dumps(HELLO))
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.llm_server", "--script", str(script)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        base = server.stdout.readline().strip()
        env = {
            **os.environ,
            "AGENT_TUI_STATE_DIR": str(work / "state"),
            "HOME": str(work),
            "ANTHROPIC_API_KEY": "bench-key",
            "OPENAI_API_KEY": "bench-key",
        }
        measure("agent-tui --version", [AGENT, "--version"], env, work, runs)
        apis = {
            "anthropic": [
                "--provider",
                "anthropic",
                "--base-url",
                base,
                "--model",
                "claude-sonnet-4-5",
            ],
            "openai": ["--provider", "openai", "--base-url", base + "/v1", "--model", "gpt-4.1"],
        }
        for api, flags in apis.items():
            measure(
                f"agent-tui -p hello ({api})",
                [AGENT, "-p", "hello", *flags],
                env,
                work,
                runs,
                lambda: _post(base + "/_script", HELLO),
            )
            measure(
                f"agent-tui -p (read_file round, {api})",
                [AGENT, "-p", "what does main.py do?", *flags],
                env,
                work,
                runs,
                lambda: _post(base + "/_script", READ_ROUND),
            )
        first = json.loads(urllib.request.urlopen(base + "/_requests").read())[-2]
        system = first.get("system", "")
        if isinstance(system, list):
            system = "".join(part.get("text", "") for part in system)
        if not system:
            system = next(
                (m["content"] for m in first.get("messages", []) if m["role"] == "system"), ""
            )
        tools = json.dumps(first.get("tools", []))
        print(
            f"first request: system prompt {len(system)} chars + tool schemas {len(tools)} chars "
            f"= {len(system) + len(tools)} chars ({len(first.get('tools', []))} tools)"
        )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
