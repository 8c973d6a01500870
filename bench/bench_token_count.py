"""What an exact token count costs (issue 14.4, ``[model] count_tokens``).

Two figures, against the fake server on loopback (so they measure the client's own cost: building
the count body, the extra HTTP request; a real server adds its tokenizer time, ~ms for llama.cpp,
a network round trip for Anthropic):

1. one uncached count of a ~100k-character request (llama.cpp ``/tokenize``, Anthropic
   ``count_tokens``), median of 20 in-process;
2. ``agent-tui -p`` on a request that chars/4 says fits but the server (2.5 chars a token) refuses:
   ``count_tokens = "auto"`` (counted twice, pruned, one model request) against ``"off"`` (refused,
   pruned, sent again), median wall time of 5 runs each.

    .venv/bin/python bench/bench_token_count.py
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agent_tui.agent.exact_count import ExactCounter  # noqa: E402
from agent_tui.config import ModelConfig  # noqa: E402
from agent_tui.conversation import Message, TextBlock  # noqa: E402
from agent_tui.providers import make_provider  # noqa: E402
from agent_tui.providers.base import ProviderRequest  # noqa: E402
from tests.fakes.llm_server import FakeLLM  # noqa: E402

TEXT = "".join(f"line {n:04d} of a file long enough to count\n" for n in range(2400))
WINDOW = 32768


async def one_count(model: ModelConfig, source: str | None) -> float:
    provider = make_provider(model)
    request = ProviderRequest(
        model=model.name,
        system="You are a coding agent.",
        messages=[Message("user", [TextBlock(TEXT)])],
        tools=[],
        max_tokens=1024,
    )
    started = time.perf_counter()
    counted = await ExactCounter().count(model, provider, request, source)
    elapsed = time.perf_counter() - started
    assert counted, "no count"
    await provider.aclose()
    return elapsed


def cli_run(fake: FakeLLM, tmp: Path, mode: str) -> float:
    ws, home = tmp / "ws", tmp / f"home-{mode}"
    ws.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    (ws / "big.txt").write_text(TEXT[: 1900 * 41])
    (home / ".agentrc").write_text(f'[model]\ncount_tokens = "{mode}"\n')
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(tmp / f"state-{mode}"),
        "OPENAI_API_KEY": "sk-local",
    }
    fake.set_script([{"text": "done"}])
    args = ["--provider", "openai", "--base-url", fake.openai_url, "--model", "qwen"]
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "agent_tui", *args, "-p", "#file:big.txt what does it say?"],
        cwd=ws,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    elapsed = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr
    return elapsed


def main() -> None:
    with FakeLLM() as fake:
        fake.context_flavour, fake.n_ctx = "llamacpp", WINDOW
        fake.chars_per_token, fake.context_limit, fake.overflow_style = 2.5, WINDOW, "llamacpp"
        os.environ["OPENAI_API_KEY"] = os.environ["ANTHROPIC_API_KEY"] = "sk-bench"
        llama = ModelConfig("openai", "qwen", fake.openai_url, "OPENAI_API_KEY")
        claude = ModelConfig("anthropic", "claude-sonnet-4-5", fake.url, "ANTHROPIC_API_KEY")
        for label, model, source in (
            ("llama.cpp /tokenize", llama, "llama.cpp /props"),
            ("Anthropic count_tokens", claude, None),
        ):
            times = [asyncio.run(one_count(model, source)) for _ in range(20)]
            print(
                f"{label}: one count of {len(TEXT):,} chars, median {statistics.median(times) * 1000:.1f} ms"
            )
        tmp = Path(tempfile.mkdtemp(prefix="agent-tui-bench-"))
        for mode in ("auto", "off"):
            fake.received.clear()
            fake.counts.clear()
            times = [cli_run(fake, tmp, mode) for _ in range(5)]
            print(
                f"-p near the limit, count_tokens={mode}: median {statistics.median(times):.2f} s "
                f"({len(fake.received) // 5} model requests, {len(fake.counts) // 5} counts per run)"
            )


if __name__ == "__main__":
    main()
