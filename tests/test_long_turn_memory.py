"""Memory of a long ``-p`` turn stays flat: a real process against the fake server.

The conversation lets go of the tool outputs no request will carry again (agent/pruned_outputs.py)
and whoever kept the old messages must let go too. A merge once lost that (the session recorder
kept every message it wrote): 300 rounds of ``read_file`` on a 2,000-line file peaked at 57 MiB
instead of 34 (``bench/bench_rounds.py`` measures the same run). The test compares the peak RSS
of that 300-round run with a 1-round run of the same shape, so the interpreter's and the
platform's base size cancel out: the outputs kept by the regression add ~23 MiB, the fixed code
~6 MiB.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env

LINES = 2000  # ~78 KiB an output, as in bench/bench_rounds.py
GROWTH_LIMIT_MIB = 14
# Starts the command and writes its peak RSS (MiB) to argv[1]. A child's peak counts the RSS of
# the process it was forked from (Linux keeps it across fork and exec), so the command is forked
# from this small launcher, not from pytest (~55 MiB, more than the run measured).
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
per_mib = 1024 * 1024 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes / KiB
with open(sys.argv[1], "w") as out:
    out.write(str(usage.ru_maxrss / per_mib))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def peak_rss_mib(tmp_path: Path, rounds: int) -> float:
    """Peak RSS of one ``agent-tui -p`` process that reads big.py ``rounds`` times."""
    run = tmp_path / f"run-{rounds}"
    ws = run / "ws"
    ws.mkdir(parents=True)
    (ws / "big.py").write_text(
        "".join(f"def function_{i}(x):  # line {i} of the file\n" for i in range(LINES))
    )
    call = {"name": "read_file", "input": {"path": "big.py"}}
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"id": f"c{i}", **call}]} for i in range(rounds)
    ]
    turns.append({"text": "Read it many times."})
    with FakeLLM(turns) as fake:
        fake.keep_bodies = False
        env = clean_env(
            {
                "HOME": str(run / "home"),
                "AGENT_TUI_STATE_DIR": str(run / "state"),
                "OPENAI_API_KEY": "k",
            }
        )
        argv = [sys.executable, "-c", LAUNCHER, str(run / "peak"), sys.executable, "-m"]
        argv += ["agent_tui", "-p", "read big.py many times", "--provider", "openai"]
        argv += ["--base-url", fake.openai_url, "--model", "test-model"]
        argv += ["--max-turns", str(rounds + 1)]
        proc = subprocess.run(argv, cwd=ws, env=env, capture_output=True, timeout=300)
        assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-2000:]
        assert b"Read it many times." in proc.stdout
        assert fake.turns_served == rounds + 1
    return float((run / "peak").read_text())


def test_a_300_round_turn_peaks_near_a_1_round_one(tmp_path: Path) -> None:
    short = peak_rss_mib(tmp_path, 1)
    long = peak_rss_mib(tmp_path, 300)
    print(f"peak RSS: 1 round {short:.1f} MiB, 300 rounds {long:.1f} MiB")
    assert long - short <= GROWTH_LIMIT_MIB, f"peak {short:.1f} MiB -> {long:.1f} MiB"
