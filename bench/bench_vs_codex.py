"""agent-tui against Codex CLI in one run, alternating A/B, against one fake server (issue 13).

    .venv/bin/python bench/bench_vs_codex.py [--runs 9] [--cases version,hello,tool]
                                             [--cache DIR] [--agent-tui PATH]

Installs ``@openai/codex`` (pinned, ``CODEX_VERSION``) with npm into ``DIR/npm`` once, where DIR
is ``--cache``, else ``$AGENT_TUI_BENCH_CACHE``, else ``~/.cache/agent-tui-bench``: outside the
repository, which nothing here reads or writes. Codex's config home, agent-tui's HOME and state dir
and a one-file scratch git repo that both run in are made there too. ``bench/mockllm.py`` serves
both on 127.0.0.1 (Chat Completions for agent-tui, Responses for Codex), so all time measured is
the clients' own. For each case the two commands alternate (A B A B ..., after one warm-up pair)
and the A/B ratio is taken pair by pair, which is the only figure that compares on a shared, noisy
machine. Printed per case: wall median and min–max, peak RSS, spawn → first request (from the
mock's request log, one tag per run) and the ratios; and the load average before and after.

Cases: ``version`` (``--version``), ``hello`` (one answer), ``tool`` (the model asks for the shell
command ``echo hi``; the client runs it without asking and sends the output back; a second answer),
``start`` (the TUI: spawn -> its empty prompt drawn in a 100x30 pty, ``bench/pty_start.py``; the
"wall" row is that time, the CPU row the process's CPU until it is killed just after; for
agent-tui the prompt of its early screen, which takes keys while the app loads), ``app-ready``
(the same until agent-tui's app itself is up: its status bar says "ready"). Every case
prints the CPU time (user + system, the kernel's accounting of the child) beside the wall time:
on a busy machine wall ratios drift, CPU ratios much less.

agent-tui runs without ``PYTHONDONTWRITEBYTECODE`` so the warm-up writes bytecode, as an install
with compiled bytecode has it (issue 13 item 6 measures the difference).

Origin: the paired timer (``run_once``), the Codex settings and the prompts are adapted from the
peer benchmark harness that came with issue 13 (its ``bench_cmd.py``, ``peer.sh`` and
``setup_homes.sh``); nothing here reads that harness.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import pty_start  # noqa: E402  (bench/, beside this script)

CODEX_VERSION = "0.169.0"
HELLO_PROMPT = "Say hello."
TOOL_PROMPT = "Run the shell command: echo hi"
CODEX_CONFIG = """\
model_provider = "mock"
check_for_update_on_startup = false
approval_policy = "never"

[model_providers.mock]
name = "mock"
base_url = "http://127.0.0.1:9/v1"  # replaced per run with -c
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false
"""


# What each TUI shows in its empty prompt: drawn, the first screen is ready for typing. For
# agent-tui that is its early screen (early_screen/: drawn before the app loads, keys typed on it
# kept); ``app-ready`` waits for the app itself (its status bar's "ready"), where Codex's is the
# same prompt.
PROMPT_MARKERS = {
    "start": ("Ask anything", "Ask Codex to do anything"),
    "app-ready": ("○ ready", "Ask Codex to do anything"),
}


@dataclass
class Run:
    wall: float
    cpu: float
    peak_mib: float
    first_request: float | None


def cache_dir(arg: str | None) -> Path:
    chosen = arg or os.environ.get("AGENT_TUI_BENCH_CACHE") or "~/.cache/agent-tui-bench"
    path = Path(chosen).expanduser().resolve()
    if path.is_relative_to(BENCH.parent):
        raise SystemExit(f"{path}: the cache must be outside the repository")
    return path


def install_codex(cache: Path) -> Path:
    """Codex's launcher under ``cache/npm``, installed with npm when missing or another version."""
    prefix = cache / "npm"
    codex = prefix / "bin" / "codex"
    stamp = prefix / "codex-version"
    if codex.exists() and stamp.exists() and stamp.read_text().strip() == CODEX_VERSION:
        return codex
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm not found: install Node.js (npm) to run Codex CLI")
    print(f"installing @openai/codex@{CODEX_VERSION} into {prefix} ...", flush=True)
    subprocess.run(
        [npm, "install", "-g", "--prefix", str(prefix), "--no-fund", "--no-audit"]
        + [f"@openai/codex@{CODEX_VERSION}"],
        check=True,
    )
    stamp.write_text(CODEX_VERSION + "\n")
    return codex


def prepare_dirs(cache: Path) -> Path:
    """Codex's config home, agent-tui's home, and the scratch repo both run in."""
    (cache / "home" / "codex").mkdir(parents=True, exist_ok=True)
    work = cache / "workdir"
    # Trusted, as a folder one works in is: the TUI asks nothing before its prompt.
    trusted = f'\n[projects."{work}"]\ntrust_level = "trusted"\n'
    (cache / "home" / "codex" / "config.toml").write_text(CODEX_CONFIG + trusted)
    (cache / "home" / "agent-tui").mkdir(parents=True, exist_ok=True)
    if not (work / ".git").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        (work / "README.md").write_text("# demo\nA tiny project for agent benchmarks.\n")
        git = ["git", "-C", str(work), "-c", "user.email=b@example.invalid", "-c", "user.name=b"]
        subprocess.run([*git, "init", "-q"], check=True)
        subprocess.run([*git, "add", "README.md"], check=True)
        subprocess.run([*git, "commit", "-qm", "init"], check=True)
    return work


def clean_env() -> dict[str, str]:
    """This environment without keys, base URLs, proxies or agent-tui settings."""
    drop = ("AGENT_TUI_", "CODEX_", "OPENAI_", "ANTHROPIC_")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop)
        and not k.endswith(("_API_KEY", "_BASE_URL"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def commands(case: str, url: str, agent: str, codex: Path, cache: Path) -> tuple[list[str], ...]:
    """(agent-tui argv, Codex argv) for a case; ``url`` is the mock's ``.../s/<scenario>/v1``."""
    if case == "version":
        return [agent, "--version"], [str(codex), "--version"]
    if case in PROMPT_MARKERS:
        a = [agent, "--provider", "openai", "--base-url", url, "--model", "gpt-4.1"]
        return a, [str(codex), "-m", "gpt-5.5", "-c", f'model_providers.mock.base_url="{url}"']
    prompt = HELLO_PROMPT if case == "hello" else TOOL_PROMPT
    a = [agent, "-p", prompt, "--provider", "openai", "--base-url", url, "--model", "gpt-4.1"]
    c = [str(codex), "exec", "--skip-git-repo-check", "-m", "gpt-5.5"]
    c += ["-c", f'model_providers.mock.base_url="{url}"']
    if case == "tool":
        a.append("--yolo")
        c.append("--dangerously-bypass-approvals-and-sandbox")
    return a, [*c, prompt]


def run_once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, Run]:
    """(spawn wall-clock time, its figures) of one whole process."""
    started = time.time()
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stderr is not None
    err = proc.stderr.read()  # drained while it runs; EOF when the process (group) closes it
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[0]} failed ({status}): {err.decode(errors='replace')[-2000:]}")
    return started, Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, None)


def measure(
    case: str, side: str, argv: list[str], env: dict[str, str], cwd: Path
) -> tuple[float, Run]:
    """(spawn wall-clock time, its figures) of one run of ``case``."""
    if case not in PROMPT_MARKERS:
        return run_once(argv, env, cwd)
    start = pty_start.time_to_prompt(argv, env, cwd, PROMPT_MARKERS[case][side == "B"])
    return start.spawned, Run(start.prompt_s, start.cpu_s, start.peak_mib, None)


def requests_of(log: Path, tag: str) -> list[dict[str, Any]]:
    """The model requests one run made (its tag is in the URL path). agent-tui also asks a
    non-default server for its context window (``/props``, ``/v1/models``, ``/api/show``…) the
    first time it meets a base URL; each run's URL carries its own tag, so every run pays that
    first-meeting cost here (in use it is cached a day): timed, but not a model request."""
    return [
        rec
        for rec in map(json.loads, log.read_text().splitlines())
        if rec.get("tag") == tag
        and rec.get("method") == "POST"
        and str(rec.get("path", "")).endswith(("/chat/completions", "/responses", "/messages"))
    ]


def spread(values: list[float], fmt: str = "{:.3f}") -> str:
    if not values:
        return "—"
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--cases", default="version,hello,tool")
    parser.add_argument("--cache", help="where Codex and the scratch dirs live (outside the repo)")
    parser.add_argument("--agent-tui", default=str(Path(sys.executable).parent / "agent-tui"))
    args = parser.parse_args()
    cache = cache_dir(args.cache)
    codex = install_codex(cache)
    work = prepare_dirs(cache)
    env = clean_env()
    agent_env = {**env, "HOME": str(cache / "home" / "agent-tui"), "OPENAI_API_KEY": "mock"}
    agent_env["AGENT_TUI_STATE_DIR"] = str(cache / "home" / "agent-tui" / "state")
    agent_env.pop("PYTHONDONTWRITEBYTECODE", None)
    codex_env = {**env, "CODEX_HOME": str(cache / "home" / "codex"), "MOCK_API_KEY": "mock"}
    log = Path(tempfile.mkdtemp(prefix="bench-vs-codex-")) / "requests.jsonl"
    mock = subprocess.Popen(
        [sys.executable, str(BENCH / "mockllm.py"), "--port", "0", "--log", str(log)]
        + ["--port-file", str(log.with_name("port"))],
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            if log.with_name("port").exists():
                break
            time.sleep(0.01)  # the mock's start-up, before any timing
        port = int(log.with_name("port").read_text())
        log.touch()
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"A = agent-tui ({args.agent_tui}), B = Codex CLI {CODEX_VERSION}; {args.runs} pairs")
        for case in args.cases.split(","):
            runs: dict[str, list[Run]] = {"A": [], "B": []}
            for i in range(args.runs + 1):
                for side in ("A", "B"):
                    tag = f"{side}-{case}-{i}"
                    scenario = case if case in ("hello", "tool") else "hello"
                    url = f"http://127.0.0.1:{port}/p/{tag}/s/{scenario}/v1"
                    argv = commands(case, url, args.agent_tui, codex, cache)[side == "B"]
                    started, run = measure(
                        case, side, argv, agent_env if side == "A" else codex_env, work
                    )
                    sent = requests_of(log, tag)
                    # hello: one request; tool: a second one carrying the command's result.
                    expected = {"version": 0, "hello": 1, "tool": 2, "start": 0, "app-ready": 0}[
                        case
                    ]
                    if len(sent) != expected or (case == "tool" and not sent[-1]["tool_results"]):
                        raise SystemExit(f"{tag}: {len(sent)} requests, expected {expected}")
                    first = min((float(r["t"]) for r in sent), default=None)
                    run.first_request = None if first is None else first - started
                    if i:  # the first pair warms caches and is not counted
                        runs[side].append(run)
            report(case, runs)
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    finally:
        mock.terminate()
        mock.wait()


def report(case: str, runs: dict[str, list[Run]]) -> None:
    a, b = runs["A"], runs["B"]
    pairs = list(zip(a, b, strict=True))
    print(f"\n[{case}]{'':12}{'agent-tui':>26}{'Codex CLI':>26}{'A/B':>26}")
    rows = (
        ("wall s", [r.wall for r in a], [r.wall for r in b], [x.wall / y.wall for x, y in pairs]),
        ("CPU s", [r.cpu for r in a], [r.cpu for r in b], [x.cpu / y.cpu for x, y in pairs]),
        (
            "peak RSS MiB",
            [r.peak_mib for r in a],
            [r.peak_mib for r in b],
            [x.peak_mib / y.peak_mib for x, y in pairs],
        ),
    )
    for label, va, vb, ratio in rows:
        fmt = "{:.1f}" if "MiB" in label else "{:.3f}"
        print(f"{label:<18}{spread(va, fmt):>26}{spread(vb, fmt):>26}{spread(ratio, '{:.2f}'):>26}")
    fa = [r.first_request for r in a if r.first_request is not None]
    fb = [r.first_request for r in b if r.first_request is not None]
    if fa or fb:
        print(f"{'spawn → 1st req s':<18}{spread(fa):>26}{spread(fb):>26}")


if __name__ == "__main__":
    main()
