"""A 2,000-message transcript: RSS and key-press -> repaint latency at the end of it.

Mounts user messages, Markdown answers with code blocks and tool cards with diffs into the app's
transcript (headless, 100x32); the transcript keeps the last entries as widgets and the rest as
records, so memory and frame time should stay flat.

    .venv/bin/python bench/bench_ui_transcript.py [--messages 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ui_common import rss_mib, scripted_agent, temp_env  # noqa: E402  (bench/ is on sys.path)

ANSWER = (
    "Here is the change, with **bold** and `code`:\n\n```python\n"
    "def add(a: int, b: int) -> int:\n    return a + b\n```\n\n- one\n- two\n"
)
DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-old line\n+new line\n context"


async def keypress_latency(app: Any, presses: int = 30) -> list[float]:
    """Seconds from a key event reaching the app to the end of the refresh that shows it."""
    from textual import events

    prompt = app.query_one("PromptInput")
    samples = []
    for _ in range(presses):
        before = prompt.text
        painted = asyncio.Event()
        start = time.perf_counter()
        app._driver.send_message(events.Key("x", "x"))  # what the terminal driver does
        while prompt.text == before:
            await asyncio.sleep(0)
        app.call_after_refresh(painted.set)
        await painted.wait()
        samples.append(time.perf_counter() - start)
        await asyncio.sleep(0.02)  # let the blink timer and idle work settle between samples
    return samples


async def run(messages: int) -> None:
    from agent_tui.ui.app import AgentApp
    from agent_tui.ui.widgets.assistant import AssistantMessage
    from agent_tui.ui.widgets.notes import UserMessage
    from agent_tui.ui.widgets.tool_card import CardState, ToolCard

    base = temp_env()
    agent = scripted_agent(base, [])
    app = AgentApp(agent, workspace_label="~/bench")
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        rss_start = rss_mib()
        early = await keypress_latency(app)
        start = time.perf_counter()
        for i in range(messages):
            kind = i % 3
            if kind == 0:
                await app.transcript.add(UserMessage(f"request {i}: please change app.py"))
            elif kind == 1:
                await app.transcript.add(AssistantMessage(ANSWER))
            else:
                state = CardState(f"c{i}", "replace_string_in_file", "edit", {"path": "app.py"})
                card = await app.transcript.add(ToolCard(state))
                card.set_finished("ok", False, DIFF, "Edited app.py", 0.2)  # type: ignore[attr-defined]
        await pilot.pause()
        mount_s = time.perf_counter() - start
        late = await keypress_latency(app)
        rss_end = rss_mib()
        mounted = len(app.transcript.entries)
        hidden = len(app.transcript.hidden)
    print(
        f"{messages} transcript entries: {mount_s:.1f} s to add ({mount_s / messages * 1000:.1f} ms each)"
    )
    print(f"  widgets mounted {mounted}, kept as records {hidden}")
    print(f"  RSS: {rss_start:.0f} MiB at start -> {rss_end:.0f} MiB after")
    print(
        "  key press -> repaint: "
        f"empty transcript median {statistics.median(early) * 1000:.1f} ms; "
        f"after {messages}: median {statistics.median(late) * 1000:.1f} ms, "
        f"max {max(late) * 1000:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=2000)
    args = parser.parse_args()
    asyncio.run(run(args.messages))


if __name__ == "__main__":
    main()
