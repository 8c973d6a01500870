"""Exact token counts from the server's tokenizer near the limit (issue 14.4, ``count_tokens``).

The fake server counts at 2.5 characters a token (``chars_per_token``), both when it refuses a
request as too long and when asked to count (llama.cpp ``/tokenize``, Anthropic
``count_tokens``), so a request that chars/4 says fits is over the server's limit: counted, it is
pruned before it is sent; uncounted, the server refuses it and the client prunes and retries.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_api

# The prompt budget is 24,576: max_tokens (8,192) is kept for the reply (28,672 on llama.cpp,
# a local server, whose default reply budget is 4,096).
WINDOW = 32768
# Attached to the first request (before any usage has calibrated the estimate; a whole file goes
# without line numbers), this file puts it between 85% and 100% of that budget by chars/4 (so the client believes it fits) but over the
# server's limit at 2.5 chars a token.
BIG_FILE = "".join(f"line {n:04d} of a file long enough to count\n" for n in range(2130))
CPT = 2.5
PROMPT = "#file:big.txt what does it say?"
ANSWER = [{"text": "done"}]
# A local server is sent the short instructions and the small core of tools (issue 28), some
# 8,000 characters less: its file is longer, to land at the same place.
LOCAL_FILE = BIG_FILE + "".join(
    f"line {n:04d} of a file long enough to count\n" for n in range(150)
)


def run(
    tmp_path: Path, fake: FakeLLM, style: str, config: str = "", window: int = WINDOW
) -> subprocess.CompletedProcess[str]:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    (ws / "big.txt").write_text(LOCAL_FILE if style == "llamacpp" else BIG_FILE)
    if style == "llamacpp":
        api, key, model = "openai", "sk-local", "qwen"
    else:
        api, key, model = "anthropic", "sk-ant-test", "claude-sonnet-4-5"
        config = f"[model]\ncontext_window = {window}\n{config}"
    args = ["-p", PROMPT, "--output-format", "json"]
    return run_on_api(ws, fake, api, *args, key=key, model=model, rc=config)


def near_limit_server(fake: FakeLLM, style: str) -> None:
    fake.chars_per_token = CPT
    fake.context_limit, fake.overflow_style = WINDOW, style
    if style == "llamacpp":
        fake.context_flavour, fake.n_ctx = "llamacpp", WINDOW
    fake.set_script(ANSWER)


def result_of(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert proc.returncode == 0, proc.stderr + proc.stdout
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


def refused(fake: FakeLLM) -> list[int]:
    """The requests the fake server refused as too long (by its own count)."""
    return [
        n
        for n, body in enumerate(fake.requests)
        if len(json.dumps(body)) / fake.chars_per_token > WINDOW
    ]


COUNT_PATH = {"llamacpp": "/tokenize", "anthropic": "/v1/messages/count_tokens"}


@pytest.mark.parametrize("style", ["llamacpp", "anthropic"])
def test_an_exact_count_over_the_budget_prunes_before_sending(
    tmp_path: Path, fake_llm: FakeLLM, style: str
) -> None:
    """chars/4 says the second request fits; the server's count says not: pruned, sent once."""
    near_limit_server(fake_llm, style)
    result = result_of(run(tmp_path, fake_llm, style))
    assert result["result"] == "done"
    assert result["pruned"], result
    # One model request, not refused: no "too long" round trip.
    assert len(fake_llm.requests) == 1
    assert refused(fake_llm) == []
    # Counted and found over; built again, filling the budget at the corrected scale, so near
    # the limit again: counted again, found within, sent.
    assert fake_llm.counts == [COUNT_PATH[style]] * 2


@pytest.mark.parametrize("style", ["llamacpp", "anthropic"])
@pytest.mark.parametrize("failure", ["404", "timeout"])
def test_a_count_that_fails_falls_back_to_the_estimate(
    tmp_path: Path, fake_llm: FakeLLM, style: str, failure: str
) -> None:
    """No count: the estimate decides, the server refuses, and the old prune-and-retry recovers."""
    near_limit_server(fake_llm, style)
    if failure == "404":
        fake_llm.count_status = 404
    else:
        fake_llm.count_delay_s = 3.0  # over the client's 1.5 s count timeout
    result = result_of(run(tmp_path, fake_llm, style))
    assert result["result"] == "done"
    assert fake_llm.counts == [COUNT_PATH[style]]  # asked once, not again after failing
    assert len(fake_llm.requests) == 2  # the refused request and its pruned retry
    assert refused(fake_llm) == [0]


@pytest.mark.parametrize("style", ["llamacpp", "anthropic"])
def test_count_tokens_off_never_asks(tmp_path: Path, fake_llm: FakeLLM, style: str) -> None:
    near_limit_server(fake_llm, style)
    config = '[model]\ncount_tokens = "off"\n' if style == "llamacpp" else 'count_tokens = "off"\n'
    result = result_of(run(tmp_path, fake_llm, style, config))
    assert result["result"] == "done"
    assert fake_llm.counts == []
    assert refused(fake_llm) == [0]


@pytest.mark.parametrize("style", ["llamacpp", "anthropic"])
def test_far_from_the_limit_nothing_is_counted(
    tmp_path: Path, fake_llm: FakeLLM, style: str
) -> None:
    """The common path pays no extra round trip."""
    fake_llm.context_flavour = "llamacpp" if style == "llamacpp" else None
    fake_llm.n_ctx = 200_000
    fake_llm.set_script(ANSWER)
    config = "[model]\ncontext_window = 200000\n" if style == "llamacpp" else ""
    proc = run(tmp_path, fake_llm, style, config, window=200_000)
    assert result_of(proc)["result"] == "done"
    assert fake_llm.counts == []
