"""Tool search over 300 MCP tools (issue 26 item 4): request size and rounds to reach a tool.

    .venv/bin/python bench/bench_tool_search.py [--tools 300] [--targets 6]

Real ``agent-tui -p`` processes against the fake LLM server (tests/fakes/llm_server.py, in this
process) with a real stdio MCP server of ``--tools`` tools (tests/toolsearch/catalog_server.py),
on a 200k and a 16k window (``[model] context_window``). For each target tool, spread over the
catalog, the scripted model asks ``tool_search`` with the words of the tool's description, then
calls the tool; printed per window: the first request's instructions + tool schemas (characters,
tools), whether the search loaded the target, the model requests until the target ran, and the
same with ``tool_search`` disabled (the old way: the first 128 tools offered, the rest never).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakes.llm_server import FakeLLM  # noqa: E402
from tests.helpers import run_on_fake  # noqa: E402
from tests.toolsearch.catalog_server import NOUNS, VERBS  # noqa: E402
from tests.toolsearch.helpers import catalog_agentrc, offered, prompt_chars  # noqa: E402

WINDOWS = (200_000, 16_384)


def catalog(tools: int) -> list[str]:
    """The catalog server's tool names, in its order."""
    names = ["get_weather_forecast", "sync_notes"]
    names += [f"{verb}_{noun}" for noun in NOUNS for verb in VERBS][: tools - 2]
    return names


def run(rc: str, script: list[dict[str, Any]]) -> tuple[FakeLLM, str, float]:
    """``agent-tui -p go`` with ``rc``; the fake, the error line (empty when it ran) and the wall."""
    fake = FakeLLM(script).start()
    work = Path(tempfile.mkdtemp(prefix="bench-toolsearch-"))
    for folder in ("ws", "home"):
        (work / folder).mkdir()
    (work / "home" / ".agentrc").write_text(rc)
    start = time.perf_counter()
    proc = run_on_fake(
        work / "ws", fake, "-p", "go", "--yolo", home=work / "home", state=work / "state"
    )
    wall = time.perf_counter() - start
    fake.stop()
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    return fake, (errors[-1][:110] if proc.returncode else ""), wall


def reach(tools: int, window: int, target: str, search: bool) -> dict[str, Any]:
    """One run: search for ``target`` by its words (when ``search``), then call it."""
    call = {"id": "c1", "name": f"mcp_catalog_{target}", "input": {}}
    if target == "get_weather_forecast":
        call["input"] = {"city": "Oslo"}
    script: list[dict[str, Any]] = [{"tool_calls": [call]}, {"text": "done"}]
    if search:
        query = target.replace("_", " ")
        script.insert(
            0, {"tool_calls": [{"id": "s1", "name": "tool_search", "input": {"query": query}}]}
        )
    marks = Path(tempfile.mkdtemp(prefix="bench-toolsearch-marks-"))
    extra = f"[model]\ncontext_window = {window}\n"
    if not search:
        extra += '[tools]\ndisabled = ["tool_search"]\n'
    fake, error, wall = run(catalog_agentrc(tools, marks, extra), script)
    first = fake.requests[0] if fake.requests else {}
    ran = (marks / f"ran-{target}").exists()
    return {
        "error": error,
        "chars": prompt_chars(first),
        "tools": len(offered(first)),
        "offered_first": call["name"] in offered(first),
        "ran": ran,
        "rounds": len(script) - 1 if ran else None,
        "wall": wall,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", type=int, default=300)
    parser.add_argument("--targets", type=int, default=6)
    args = parser.parse_args()
    names = catalog(args.tools)
    step = max(1, len(names) // args.targets)
    targets = names[::step][: args.targets]
    print(f"load average {os.getloadavg()[0]:.2f}; {args.tools} MCP tools; targets: {targets}")
    for window in WINDOWS:
        for search in (True, False):
            results = [reach(args.tools, window, target, search) for target in targets]
            first = results[0]
            reached = [r for r in results if r["ran"]]
            rounds = sorted(r["rounds"] for r in reached)
            label = "tool_search" if search else "tool_search disabled"
            if first["error"]:
                print(f"window {window:>7,} {label:<21} does not start: {first['error']}")
                continue
            print(
                f"window {window:>7,} {label:<21} first request {first['chars']:>7,} chars, "
                f"{first['tools']:>3} tools; reached {len(reached)}/{len(results)} targets"
                + (f" in {rounds[0]}-{rounds[-1]} model requests" if rounds else "")
                + f"; median wall {sorted(r['wall'] for r in results)[len(results) // 2]:.2f} s"
            )


if __name__ == "__main__":
    main()
