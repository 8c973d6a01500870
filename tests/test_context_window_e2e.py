"""The real context window (issue 14.4): asked from the server, cached, else config, else known.

Each test runs `agent-tui -p --output-format json` against the fake server answering one local
server's flavour of "how large is your context", and reads ``usage.context_window``.
"""

from __future__ import annotations

import json
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_api


def run(
    tmp_path: Path, fake: FakeLLM, *args: str, user_config: str = "", model: str = "test-model"
) -> subprocess.CompletedProcess[str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    return run_on_api(ws, fake, "openai", *args, key="sk-local", model=model, rc=user_config)


def usage_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr + proc.stdout
    usage: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])["usage"]
    return usage


@pytest.mark.parametrize("flavour", ["llamacpp", "vllm", "lmstudio", "ollama"])
def test_the_server_states_its_window(tmp_path: Path, fake_llm: FakeLLM, flavour: str) -> None:
    fake_llm.context_flavour, fake_llm.n_ctx = flavour, 8192
    fake_llm.set_script([{"text": "hi", "usage": {"input_tokens": 3523, "output_tokens": 2}}])
    usage = usage_of(run(tmp_path, fake_llm, "-p", "hello", "--output-format", "json"))
    assert usage["context_window"] == 8192
    assert usage["context_tokens"] == 3523
    # Of what a request may hold: 8,192 less the reply's share (max_tokens, at most half).
    assert usage["context_limit"] == 4096
    assert usage["context_percent"] == 86


def test_the_window_is_cached_per_server_and_model(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 12288
    fake_llm.set_script([{"text": "one"}])
    assert (
        usage_of(run(tmp_path, fake_llm, "-p", "x", "--output-format", "json"))["context_window"]
        == 12288
    )
    assert fake_llm.probes == ["GET /props"]
    cache = tmp_path / "state" / "context_windows.json"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    fake_llm.probes.clear()
    fake_llm.set_script([{"text": "two"}])
    assert (
        usage_of(run(tmp_path, fake_llm, "-p", "x", "--output-format", "json"))["context_window"]
        == 12288
    )
    assert fake_llm.probes == []  # answered from the cache
    fake_llm.set_script([{"text": "three"}])
    run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", model="other-model")
    assert fake_llm.probes == ["GET /props"]  # another model is asked again


def test_a_server_that_cannot_tell_falls_back_to_config(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.set_script([{"text": "hi"}])
    config = "[model]\ncontext_window = 50000\n"
    usage = usage_of(
        run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", user_config=config)
    )
    assert usage["context_window"] == 50000
    # Every flavour was tried, and none of them counts as a model request.
    assert set(fake_llm.probes) == {
        "GET /props",
        "GET /v1/models",
        "GET /api/v0/models",
        "POST /api/show",
    }
    assert len(fake_llm.requests) == 1


def test_config_larger_than_the_server_is_capped(tmp_path: Path, fake_llm: FakeLLM) -> None:
    fake_llm.context_flavour, fake_llm.n_ctx = "vllm", 16384
    fake_llm.set_script([{"text": "hi"}])
    config = "[model]\ncontext_window = 200000\n"
    usage = usage_of(
        run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", user_config=config)
    )
    assert usage["context_window"] == 16384


def test_a_small_served_window_prunes_the_request(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """The window the server states is the one requests are built for: an earlier long turn is
    left out rather than sent to a server that would refuse it."""
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 8192
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.txt").write_text("word\n" * 9000)  # 45,000 chars: over 8,192 tokens
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "big.txt"}}]},
            {"text": "done"},
        ]
    )
    proc = run(tmp_path, fake_llm, "-p", "read big.txt", "--output-format", "json")
    assert proc.returncode == 0, proc.stderr
    sent = json.dumps(fake_llm.requests[1])
    assert len(sent) < 8192 * 4
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["pruned"], result


def _release_after_probes(fake: FakeLLM, probes: int) -> threading.Thread:
    """Load the fake's model once the client has asked ``probes`` times (so it asked again)."""

    def release() -> None:
        deadline = time.monotonic() + 60
        while len(fake.probes) < probes and time.monotonic() < deadline:
            time.sleep(0.05)  # a poll with a deadline, not a wait for time to pass
        fake.loaded.set()

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    return thread


def test_a_loading_server_is_waited_for_and_said(tmp_path: Path, fake_llm: FakeLLM) -> None:
    """llama.cpp answers 503 "Loading model" while a cold model loads: the run waits, says so,
    asks again, and uses (and keeps) the window the loaded server states."""
    fake_llm.context_flavour, fake_llm.n_ctx = "llamacpp", 8192
    fake_llm.loaded.clear()
    fake_llm.set_script([{"text": "hi"}])
    thread = _release_after_probes(fake_llm, 8)  # every flavour asked twice while loading
    proc = run(tmp_path, fake_llm, "-p", "hello", "--output-format", "json")
    thread.join()
    assert usage_of(proc)["context_window"] == 8192
    notices = json.loads(proc.stdout.splitlines()[-1])["notices"]
    assert "is loading test-model; waiting for it" in notices[0]
    assert notices[-1].startswith("test-model is loaded (")
    assert len(fake_llm.requests) == 1  # no model request was sent to the loading server
    cache = json.loads((tmp_path / "state" / "context_windows.json").read_text())
    assert [entry["tokens"] for entry in cache.values()] == [8192]


@pytest.mark.parametrize("status", [500, 502])
def test_a_failed_probe_is_not_cached(tmp_path: Path, fake_llm: FakeLLM, status: int) -> None:
    fake_llm.context_flavour, fake_llm.probe_status = "llamacpp", status
    fake_llm.set_script([{"text": "one"}, {"text": "two"}])
    config = "[model]\ncontext_window = 50000\n"
    first = run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", user_config=config)
    assert usage_of(first)["context_window"] == 50000
    cache = tmp_path / "state" / "context_windows.json"
    assert not cache.exists() or json.loads(cache.read_text()) == {}
    fake_llm.probe_status, fake_llm.probes = None, []
    second = run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", user_config=config)
    assert usage_of(second)["context_window"] == 8192  # asked again, and told this time
    assert fake_llm.probes == ["GET /props"]


def test_a_model_request_to_a_loading_server_is_sent_again(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    """The window came from the cache (or the server restarted): the model request itself gets
    "Loading model" and is sent again past the few retries a failure gets."""
    fake_llm.loading_chats = 2
    fake_llm.set_script([{"text": "loaded at last"}])
    config = "[model]\nmax_retries = 0\n"
    proc = run(tmp_path, fake_llm, "-p", "x", "--output-format", "json", user_config=config)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1])["result"] == "loaded at last"
    assert fake_llm.loading_chats == 0
