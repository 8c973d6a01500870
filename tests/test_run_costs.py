"""What a `-p` run spends beside its work: processes, disk syncs, and the way out after the answer.

Each run is main() as the console script runs it, in a real process against the fake LLM server
(a new endpoint, so the context window is probed and cached), followed by the atexit hooks as the
interpreter runs them at exit. A profile hook records each os.fsync call during the run, audit
hooks the processes it starts and the files opened on the way out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakes.llm_server import FakeLLM
from tests.helpers import clean_env

PROBE = """
import atexit, gc, json, sys, threading
fsyncs = []
def profile(frame, event, arg):
    if event == "c_call" and getattr(arg, "__name__", "") == "fsync":
        fsyncs.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")
sys.setprofile(profile)
threading.setprofile(profile)
started = []
sys.addaudithook(lambda event, args: event == "subprocess.Popen" and started.append(str(args[0])))
from agent_tui.cli import main
code = main(sys.argv[1:])
sys.setprofile(None)
threading.setprofile(None)
sys.stdout.flush()
opened = []
sys.addaudithook(lambda event, args: event == "open" and opened.append(str(args[0])))
atexit._run_exitfuncs()
environs = [p for p in opened if p.endswith("/environ")]
report = {
    "exit": code,
    "frozen": gc.get_freeze_count(),
    "environs": environs,
    "fsyncs": fsyncs,
    "started": started,
    "subreaper": __import__("agent_tui.subreaper").subreaper.is_subreaper(),
}
print("\\n" + json.dumps(report))
"""


def run_probe(
    tmp_path: Path, fake: FakeLLM, *args: str, probe: str = PROBE
) -> tuple[str, dict[str, Any]]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    env = clean_env(
        {
            "HOME": str(tmp_path / "home"),
            "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
            "OPENAI_API_KEY": "test-key",
        }
    )
    flags = ["--provider", "openai", "--base-url", fake.openai_url, "--model", "test-model"]
    proc = subprocess.run(
        [sys.executable, "-c", probe, *flags, *args],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    report: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["exit"] == 0, proc.stderr[-2000:]
    return proc.stdout, report


def test_p_run_freezes_its_objects_before_the_final_collections(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    fake_llm.set_script([{"text": "Hello there."}])
    out, report = run_probe(tmp_path, fake_llm, "-p", "hello")
    assert "Hello there." in out
    assert report["frozen"] > 10_000  # the modules, classes and functions of a whole run
    # The run is on disk in full: session files are written with os.write, not left to GC.
    sessions = list((tmp_path / "state").rglob("*.jsonl"))
    assert sessions and any("Hello there." in s.read_text() for s in sessions)


def test_exit_without_terminal_commands_reads_no_process_environment(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The exit's search for what commands left running needs no environ when none ran."""
    fake_llm.set_script([{"text": "Hello there."}])
    _, report = run_probe(tmp_path, fake_llm, "-p", "hello")
    assert report["environs"] == []


def test_exit_after_a_terminal_command_still_looks_for_its_marker(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """Processes a command left running are still found by their marker at exit (all of /proc)."""
    call = {"id": "t1", "name": "run_in_terminal", "input": {"command": "echo hi"}}
    fake_llm.set_script([{"tool_calls": [call]}, {"text": "Done."}])
    _, report = run_probe(tmp_path, fake_llm, "--yolo", "-p", "run it")
    assert len(report["environs"]) > 1


def test_p_hello_on_a_new_endpoint_caches_its_window_without_fsync(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The first request waits for the probe and its cache write; a cache needs no fsync."""
    fake_llm.set_script([{"text": "Hello there."}])
    out, report = run_probe(tmp_path, fake_llm, "-p", "hello")
    assert "Hello there." in out
    assert report["fsyncs"] == []
    cache = json.loads((tmp_path / "state" / "context_windows.json").read_text())
    assert any(fake_llm.openai_url.rstrip("/").removesuffix("/v1") in key for key in cache), cache


def test_p_hello_starts_no_process(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """Becoming the subreaper needs libc's prctl: the interpreter has it, no `ldconfig -p` run."""
    fake_llm.set_script([{"text": "Hello there."}])
    out, report = run_probe(tmp_path, fake_llm, "-p", "hello")
    assert "Hello there." in out
    assert report["started"] == []
    assert report["subreaper"] is sys.platform.startswith("linux")


START_PROBE = """
import gc, json, sys
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
from agent_tui.launch import main
code = main(sys.argv[1:])
print("\\n" + json.dumps({"exit": code, "collections": collections, "enabled": gc.isenabled(),
                         "frozen": gc.get_freeze_count()}))
"""


def test_p_hello_starts_without_garbage_collections_and_collects_after(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The start's ~40,000 objects nearly all live on: collections over them while modules are
    imported found ~300 of garbage and took 10-15 ms of a `-p hello` run (start_gc.py). They are
    frozen once the agent is built, and the collector is on again for the session."""
    fake_llm.set_script([{"text": "Hello there."}])
    out, report = run_probe(tmp_path, fake_llm, "-p", "hello", probe=START_PROBE)
    assert "Hello there." in out and report["enabled"]
    assert report["frozen"] > 10_000  # what the start built, out of the collector's sight
    # 67 before start_gc, 4 with it (all in the turn, after the start)
    assert len(report["collections"]) <= 10, report["collections"]
