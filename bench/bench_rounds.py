"""Per-round cost over a long `-p` turn (issue 13 item 9): does it stay flat?

    .venv/bin/python bench/bench_rounds.py [--rounds 300] [--lines 2000] [--api openai]

One `agent-tui -p` process against the fake LLM server (tests/fakes/llm_server.py, in this
process): the model calls ``read_file`` on a file of ``--lines`` lines once per round, ``--rounds``
times, then answers. The server timestamps the end of each streamed answer and the arrival of the
next request; the gap is the client's time for that round (run the tool, record the result, build
and send the next request). Printed: the client time of rounds 0-9 and of the last ten, their
medians, and the process's peak RSS (from the kernel's accounting of the child). The first gap is
measured from the end of the first answer, so start-up is not in it. On Linux the client's CPU time
in each gap is printed too (its main thread's run time, from ``/proc/PID/schedstat``): on a busy
machine the wall time of a round mostly says how long the client waited for a core.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes import llm_server  # noqa: E402

ARRIVED: list[float] = []
ANSWERED: list[float] = []
# The client's CPU time (ns) at the same moments; empty where /proc/PID/schedstat is missing.
CPU_ARRIVED: list[int] = []
CPU_ANSWERED: list[int] = []
CLIENT: dict[str, int] = {}  # "pid" once started
MODEL_PATHS = (llm_server.ANTHROPIC_PATH, llm_server.OPENAI_PATH)


class _FirstOnly(list[dict[str, Any]]):
    """Keeps the first request the fake records (for its size) and drops the rest."""

    def append(self, item: dict[str, Any]) -> None:
        if not self:
            super().append(item)


FIRST = _FirstOnly()


class _TimedHandler(llm_server._Handler):
    def setup(self) -> None:
        super().setup()
        # As real API servers do. Without it, the fake's many small writes wait for the client's
        # delayed ACK on a kept-alive connection: 40 ms a round, for httpx as for any client.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_POST(self) -> None:
        # Only model requests are rounds: the context-window probe (``POST /api/show``) and token
        # counts go to the same server.
        model = self.path in MODEL_PATHS
        if model:
            ARRIVED.append(time.perf_counter())
            _cpu(CPU_ARRIVED)
        super().do_POST()
        if model:
            ANSWERED.append(time.perf_counter())
            _cpu(CPU_ANSWERED)


def _cpu(into: list[int]) -> None:
    """Note the client's CPU time so far (its main thread, where the agent's loop runs)."""
    try:
        into.append(int(Path(f"/proc/{CLIENT['pid']}/schedstat").read_text().split()[0]))
    except (OSError, KeyError, ValueError, IndexError):
        pass


class _ForgetfulFake(llm_server.FakeLLM):
    """Keeps one request body: 300 requests of ~800 KB would only load this process."""

    def __init__(self, turns: Any) -> None:
        super().__init__(turns)
        self._httpd.RequestHandlerClass = _TimedHandler

    @property
    def received(self) -> list[dict[str, Any]]:
        return FIRST

    @received.setter
    def received(self, value: list[dict[str, Any]]) -> None:
        pass


def prompt_size(body: dict[str, Any]) -> str:
    """The system prompt and tool schemas of a request, in characters, and the tool count."""
    system = body.get("system", "")
    if isinstance(system, list):
        system = "".join(part.get("text", "") for part in system)
    if not system:
        system = next((m["content"] for m in body.get("messages", []) if m["role"] == "system"), "")
    tools = json.dumps(body.get("tools", []))
    total = len(system) + len(tools)
    return (
        f"first request: system prompt {len(system):,} + tool schemas {len(tools):,} = "
        f"{total:,} chars ({len(body.get('tools', []))} tools)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--api", choices=["anthropic", "openai"], default="openai")
    parser.add_argument("--agent-tui", default=str(Path(sys.executable).parent / "agent-tui"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-rounds-"))
    ws = work / "ws"
    ws.mkdir()
    (ws / "big.py").write_text(
        "".join(f"def function_{i}(x):  # line {i} of the file\n" for i in range(args.lines))
    )
    call = {"name": "read_file", "input": {"path": "big.py"}}
    turns = [{"tool_calls": [{"id": f"c{i}", **call}]} for i in range(args.rounds)]
    turns.append({"text": "Read it many times."})
    fake = _ForgetfulFake(turns).start()
    url = fake.url if args.api == "anthropic" else fake.openai_url
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("AGENT_TUI_") and not k.endswith(("_API_KEY", "_BASE_URL"))
    }
    env |= {
        "HOME": str(work / "home"),
        "AGENT_TUI_STATE_DIR": str(work / "state"),
        "ANTHROPIC_API_KEY" if args.api == "anthropic" else "OPENAI_API_KEY": "bench-key",
    }
    cmd = [args.agent_tui, "-p", "read big.py many times", "--provider", args.api]
    cmd += ["--base-url", url, "--model", "test-model", "--max-turns", str(args.rounds + 1)]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    started = time.perf_counter()
    log = (work / "stderr.txt").open("w")  # the tool lines; read back if the run fails
    proc = subprocess.Popen(
        cmd, cwd=ws, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log
    )
    CLIENT["pid"] = proc.pid
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    fake.stop()
    if os.waitstatus_to_exitcode(status) != 0 or len(ARRIVED) != args.rounds + 1:
        tail = (work / "stderr.txt").read_text(errors="replace")[-2000:]
        raise SystemExit(f"run failed: exit {status}, {len(ARRIVED)} requests\n{tail}")
    gaps = [(ARRIVED[i + 1] - ANSWERED[i]) * 1000 for i in range(args.rounds)]
    first, last = gaps[:10], gaps[-10:]
    print(
        f"{args.rounds} rounds of read_file on {args.lines} lines ({args.api}), wall {wall:.1f} s"
    )
    print("client ms, rounds 0-9:     " + " ".join(f"{g:5.1f}" for g in first))
    n = args.rounds
    print(f"client ms, rounds {n - 10}-{n - 1}: " + " ".join(f"{g:5.1f}" for g in last))
    print(
        f"median: rounds 0-9 {statistics.median(first):.1f} ms, "
        f"rounds {n - 10}-{n - 1} {statistics.median(last):.1f} ms; "
        f"peak RSS {usage.ru_maxrss / 1024:.1f} MiB"
    )
    blocks = [gaps[i : i + 50] for i in range(0, n, 50)]
    print(
        "median per 50 rounds: "
        + " ".join(f"{statistics.median(b):.1f}" for b in blocks if b)
        + " ms"
    )
    if len(CPU_ARRIVED) == len(CPU_ANSWERED) == n + 1:
        cpu = [(CPU_ARRIVED[i + 1] - CPU_ANSWERED[i]) / 1e6 for i in range(n)]
        print(
            "client CPU ms, median per 50 rounds: "
            + " ".join(f"{statistics.median(cpu[i : i + 50]):.1f}" for i in range(0, n, 50))
            + " ms"
        )
    print(prompt_size(FIRST[0]["body"]))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
