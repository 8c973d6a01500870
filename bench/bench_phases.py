"""Where an `agent-tui -p` run's wall time goes, phase by phase, for one source tree or two.

    .venv/bin/python bench/bench_phases.py [--runs 9] [--cases hello,tool] [--tree PATH ...]

Each run is a fresh process against ``bench/mockllm.py`` (the scenarios of bench_vs_codex.py), in
that script's scratch repo and homes (``--cache``, default ``~/.cache/agent-tui-bench``). The
process runs ``agent_tui.cli.main`` from ``--tree`` (default: this checkout) through a small
wrapper that notes the time it starts, when main() returns and when the atexit hooks are done;
the mock notes when each request arrives. Printed per tree and case, medians in ms from the spawn:
interpreter up, first request (the context-window probe: each run's URL is new to agent-tui),
first and last model request, main() returned, atexit hooks done, process gone. Trees alternate
run by run, so a before/after pair sees the same load. Give an older tree (``git archive REV
agent_tui tools prompts | tar -x -C DIR``) as a second ``--tree`` to compare.
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
from pathlib import Path

from bench_vs_codex import BENCH, HELLO_PROMPT, TOOL_PROMPT, cache_dir, clean_env, prepare_dirs

WRAPPER = """
import atexit, os, sys, time
started = time.time()
sys.path.insert(0, {tree!r})
sys.argv = ["agent-tui", *sys.argv[1:]]
from agent_tui.cli import main
code = main()
returned = time.time()
atexit._run_exitfuncs()
os.write(2, f"\\nPHASES {{started}} {{returned}} {{time.time()}}\\n".encode())
sys.exit(code)
"""
COLUMNS = ("interpreter up", "1st request", "1st model req", "last model req", "main returned",
           "atexit done", "process gone")  # fmt: skip


def run_once(
    tree: str, case: str, url: str, env: dict[str, str], work: Path
) -> tuple[float, list[float], float]:
    """(spawn time, [started, main returned, atexit done], process gone) of one run."""
    prompt = HELLO_PROMPT if case == "hello" else TOOL_PROMPT
    argv = [sys.executable, "-c", WRAPPER.format(tree=tree), "-p", prompt, "--provider", "openai"]
    argv += ["--base-url", url, "--model", "gpt-4.1"] + (["--yolo"] if case == "tool" else [])
    spawned = time.time()
    proc = subprocess.Popen(
        argv, env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, _ = os.wait4(proc.pid, 0)
    gone = time.time()
    stamps = [line for line in err.splitlines() if line.startswith("PHASES ")]
    if os.waitstatus_to_exitcode(status) != 0 or not stamps:
        raise SystemExit(f"run failed ({status}): {err[-2000:]}")
    return spawned, [float(x) for x in stamps[0].split()[1:]], gone


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cases", default="hello,tool")
    parser.add_argument("--cache", help="bench_vs_codex.py's cache dir (outside the repo)")
    parser.add_argument("--tree", action="append", help="a source tree holding agent_tui/")
    args = parser.parse_args()
    trees = args.tree or [str(BENCH.parent)]
    cache = cache_dir(args.cache)
    work = prepare_dirs(cache)
    env = {**clean_env(), "HOME": str(cache / "home" / "agent-tui"), "OPENAI_API_KEY": "mock"}
    env["AGENT_TUI_STATE_DIR"] = str(cache / "home" / "agent-tui" / "state")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # compiled bytecode, as an install has it
    log = Path(tempfile.mkdtemp(prefix="bench-phases-")) / "requests.jsonl"
    port_file = log.with_name("port")
    mock = subprocess.Popen(
        [sys.executable, str(BENCH / "mockllm.py"), "--port", "0", "--log", str(log)]
        + ["--port-file", str(port_file)],
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            if port_file.exists():
                break
            time.sleep(0.01)  # the mock's start-up, before any timing
        port = int(port_file.read_text())
        log.touch()
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"medians of {args.runs} runs (after one warm-up each), ms from the spawn:")
        print(f"{'tree':<28}{'case':<6}" + "".join(f"{c:>16}" for c in COLUMNS))
        for case in args.cases.split(","):
            table: dict[str, list[list[float]]] = {tree: [] for tree in trees}
            for i in range(args.runs + 1):
                for n, tree in enumerate(trees):
                    tag = f"ph{n}-{case}-{i}"
                    url = f"http://127.0.0.1:{port}/p/{tag}/s/{case}/v1"
                    spawned, (started, returned, exited), gone = run_once(
                        tree, case, url, env, work
                    )
                    sent = [json.loads(line) for line in log.read_text().splitlines()]
                    times = [float(r["t"]) for r in sent if r.get("tag") == tag]
                    model = [
                        float(r["t"])
                        for r in sent
                        if r.get("tag") == tag and str(r["path"]).endswith("/chat/completions")
                    ]
                    row = [started, min(times), model[0], model[-1], returned, exited, gone]
                    if i:  # the first round warms caches and writes bytecode
                        table[tree].append([(t - spawned) * 1000 for t in row])
            for tree, rows in table.items():
                medians = [statistics.median(column) for column in zip(*rows, strict=True)]
                print(f"{tree[-27:]:<28}{case:<6}" + "".join(f"{m:>16.1f}" for m in medians))
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        mock.terminate()
        mock.wait()


if __name__ == "__main__":
    main()
