"""Streaming ~2,000 tokens/s into the transcript: does rendering keep up, and at what CPU cost?

A real turn (Agent, headless app 100x32) streams a long Markdown answer in 12-character chunks
(~3 tokens) paced to the target rate the way a socket delivers them: every chunk that is due is
handed over at once, without a loop iteration per chunk (``PacedProvider`` below; the scripted
provider's fixed sleep per chunk would measure asyncio's timer granularity instead). Reports the achieved rate, the lag
between the provider's last chunk and the turn's end (a growing backlog would show here), and
process CPU time / wall time (1.0 = one full core).

    .venv/bin/python bench/bench_ui_stream.py [--tokens 8000] [--rate 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ui_common import scripted_agent, temp_env  # noqa: E402

from agent_tui.providers import base as pv  # noqa: E402

CHARS_PER_TOKEN = 4
CHUNK_CHARS = 12  # the scripted provider's chunk size

PARAGRAPH = (
    "The loader reads each file once and caches the parsed result, so a second request for the "
    "same path costs a dictionary lookup. "
)
CODE = "```python\ndef load(path: str) -> dict:\n    return json.loads(Path(path).read_text())\n```\n\n"


class PacedProvider:
    """Streams ``text`` at ``chunks_per_s``; chunks already due are yielded back to back."""

    name = "paced"

    def __init__(self, text: str, chunks_per_s: float) -> None:
        self.chunks = [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]
        self.interval = 1 / chunks_per_s
        self.last_chunk_at = 0.0

    async def stream(self, request: pv.ProviderRequest) -> AsyncIterator[pv.ProviderEvent]:
        start = time.perf_counter()
        for n, chunk in enumerate(self.chunks):
            delay = start + n * self.interval - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            yield pv.TextDelta(chunk)
        self.last_chunk_at = time.perf_counter()
        yield pv.Usage(10, len(self.chunks) * 3)
        yield pv.Stop("end_turn")

    async def aclose(self) -> None:
        return None


def long_answer(tokens: int) -> str:
    text = ""
    while len(text) < tokens * CHARS_PER_TOKEN:
        text += PARAGRAPH * 3 + "\n\n" + CODE
    return text[: tokens * CHARS_PER_TOKEN]


async def run(tokens: int, rate: int, prefill: int) -> None:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.widgets.assistant import AssistantMessage
    from agent_tui.ui.widgets.notes import UserMessage

    text = long_answer(tokens)
    chunks_per_s = rate * CHARS_PER_TOKEN / CHUNK_CHARS
    base = temp_env()
    agent = scripted_agent(base, [])
    provider = PacedProvider(text, chunks_per_s)
    agent.deps.provider = provider
    app = AgentApp(agent, workspace_label="~/bench")
    async with app.run_test(size=(100, 32)) as pilot:
        for i in range(prefill):  # a transcript that is already long
            entry = UserMessage(f"earlier {i}") if i % 2 else AssistantMessage(CODE + PARAGRAPH)
            await app.transcript.add(entry)
        await pilot.pause()
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await app.submit("go")
        assert app.turn_worker is not None
        await app.turn_worker.wait()
        lag = time.perf_counter() - provider.last_chunk_at
        wall = time.perf_counter() - wall0
        cpu = time.process_time() - cpu0
        shown = app.query(AssistantMessage).last()
        complete = shown.text == text
    ideal = len(text) / CHUNK_CHARS / chunks_per_s
    print(
        f"streamed {tokens} tokens ({len(text)} chars) at a target of {rate} tokens/s "
        f"into a transcript of {prefill} entries"
    )
    print(
        f"  turn wall time {wall:.2f} s (pacing alone: {ideal:.2f} s); "
        f"achieved {tokens / wall:.0f} tokens/s"
    )
    print(f"  CPU {cpu:.2f} s = {cpu / wall:.2f} cores while streaming; all text shown: {complete}")
    print(f"  lag from the provider's last chunk to the turn's end: {lag * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=8000)
    parser.add_argument("--rate", type=int, default=2000)
    parser.add_argument("--prefill", type=int, default=0, help="entries already in the transcript")
    args = parser.parse_args()
    asyncio.run(run(args.tokens, args.rate, args.prefill))


if __name__ == "__main__":
    main()
