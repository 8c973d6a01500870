"""Time to the first answer text over ACP, paired with ``-p``.

Against one fake model server (``tests/fakes/llm_server.py``, a one-line answer), alternately:
- ``acp``: ``agent-tui acp`` already started and initialized with a session open (as an editor
  has it), the time from sending ``session/prompt`` to the first ``agent_message_chunk``;
- ``-p``: ``agent-tui -p`` from spawn to the first byte of its answer on stdout (start-up included,
  as a script pays it).
Also the ACP side's start: spawn to ``initialize`` answered and to ``session/new`` answered.

    .venv/bin/python bench/bench_acp.py [--runs 9]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block  # noqa: E402
from acp.schema import RequestPermissionResponse  # noqa: E402

from tests.fakes.llm_server import FakeLLM  # noqa: E402
from tests.helpers import clean_env  # noqa: E402

ANSWER = [{"text": "Hello from the fake model."}]


class FirstChunk:
    def __init__(self) -> None:
        self.seen = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        if update.session_update == "agent_message_chunk":
            self.seen.set()

    async def request_permission(self, **_: Any) -> RequestPermissionResponse:
        raise AssertionError("the bench's turn calls no tool")


async def acp_run(fake: FakeLLM, ws: Path, env: dict[str, str]) -> tuple[float, float, float]:
    """(spawn -> initialized, spawn -> session open, prompt -> first chunk) in seconds."""
    client = FirstChunk()
    args = ("-m", "agent_tui", "acp", "--provider", "anthropic", "--base-url", fake.url)
    t0 = time.perf_counter()
    async with spawn_agent_process(client, sys.executable, *args, cwd=ws, env=env) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        t_init = time.perf_counter() - t0
        session = await conn.new_session(cwd=str(ws), mcp_servers=[])
        t_session = time.perf_counter() - t0
        t1 = time.perf_counter()
        turn = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("hello")])
        )
        await client.seen.wait()
        first = time.perf_counter() - t1
        await turn
    return t_init, t_session, first


async def p_run(fake: FakeLLM, ws: Path, env: dict[str, str]) -> float:
    """Spawn -> the first byte of ``-p``'s answer on stdout."""
    args = ("-m", "agent_tui", "-p", "hello", "--provider", "anthropic", "--base-url", fake.url)
    t0 = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        cwd=ws,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        stdin=asyncio.subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    await proc.stdout.read(1)
    first = time.perf_counter() - t0
    await proc.stdout.read()
    await proc.wait()
    return first


def summary(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"{name}: median {statistics.median(ms):.0f} ms ({min(ms):.0f}–{max(ms):.0f})"


async def main(runs: int) -> None:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp, FakeLLM(ANSWER * (2 * runs + 2)) as fake:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        home = Path(tmp) / "home"
        env = clean_env(
            {
                "HOME": str(home),
                "AGENT_TUI_STATE_DIR": str(home / "state"),
                "ANTHROPIC_API_KEY": "k",
            }
        )
        fake.set_script(ANSWER * (2 * runs + 2))
        await acp_run(fake, ws, env)  # warm-up: bytecode, the window probe's cache
        await p_run(fake, ws, env)
        acp_times: list[tuple[float, float, float]] = []
        p_times: list[float] = []
        for _ in range(runs):
            acp_times.append(await acp_run(fake, ws, env))
            p_times.append(await p_run(fake, ws, env))
    print(f"load average {load_before:.2f} -> {os.getloadavg()[0]:.2f}, {runs} pairs")
    print(summary("acp  session/prompt -> first agent_message_chunk", [t[2] for t in acp_times]))
    print(summary("-p   spawn -> first answer byte", p_times))
    print(summary("acp  spawn -> initialize answered", [t[0] for t in acp_times]))
    print(summary("acp  spawn -> session/new answered", [t[1] for t in acp_times]))
    ratios = [a[2] / p for a, p in zip(acp_times, p_times, strict=True)]
    print(f"ratio acp first chunk / -p first byte: median {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    asyncio.run(main(parser.parse_args().runs))
