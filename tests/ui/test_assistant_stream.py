"""The streaming answer: batched Markdown updates, finished blocks frozen as a long answer grows,
and nothing lost or duplicated on the way to the frozen answer."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from agent_tui.ui.widgets import assistant
from agent_tui.ui.widgets.assistant import AssistantMessage, FrozenMarkdown, stable_prefix
from tests.ui.helpers import wait_until

PARAGRAPH = "The loader reads each file once and caches it, so a second read is a lookup.\n\n"
FENCE = "```python\ndef load(path):\n\n    return json.loads(Path(path).read_text())\n```\n\n"
LIST = "- first item\n\n  continued under the item\n- second item\n\n"


def long_answer(size: int) -> str:
    text = ""
    while len(text) < size:
        text += PARAGRAPH + FENCE + LIST
    return text + "The end."


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="log")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("one paragraph, still streaming", 0),
        ("first\n\nsecond", len("first\n\n")),
        ("a\n\nb\n\nc", len("a\n\nb\n\n")),
        # A blank line inside a fence is not a boundary; the block after the fence is.
        ("```\nx\n\ny\n```\n\nafter", len("```\nx\n\ny\n```\n\n")),
        ("~~~\nx\n\ny", 0),
        # A longer fence is not closed by a shorter one (Markdown about Markdown).
        (
            "````md\n```\n\nstill inside\n````\n\nafter",
            len("````md\n```\n\nstill inside\n````\n\n"),
        ),
        # An indented line after a blank one continues a list item (or is indented code).
        ("- item\n\n  more of the item", 0),
        ("text\n\n\n\nnext", len("text\n\n\n\n")),
    ],
)
def test_stable_prefix(text: str, expected: int) -> None:
    assert stable_prefix(text) == expected


def fence_lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip().startswith("```"))


async def test_a_long_answer_freezes_its_finished_head_and_loses_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(assistant, "STREAM_FPS", 1e9)  # every fragment is its own update
    monkeypatch.setattr(assistant, "FREEZE_CHARS", 300)
    text = long_answer(3000)
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        message = AssistantMessage()
        await app.query_one("#log").mount(message)
        longest_live = 0
        for n, start in enumerate(range(0, len(text), 40)):
            await message.append_text(text[start : start + 40])
            if n % 5 == 0:
                await pilot.pause()
                longest_live = max(longest_live, len(message.query_one(Markdown).source))
        heads = list(message.query(FrozenMarkdown))
        assert len(heads) >= 4
        # The live widget stays small: at most the threshold plus the block being written.
        assert longest_live < assistant.FREEZE_CHARS + len(PARAGRAPH + FENCE + LIST)
        assert "".join(h.source for h in heads) + message.query_one(Markdown).source == text
        assert all(fence_lines(h.source) % 2 == 0 for h in heads)  # never cut inside a fence
        await message.finish()
        await pilot.pause()
        assert not message.query(Markdown)
        assert "".join(f.source for f in message.query(FrozenMarkdown)) == text
        assert message.text == text


async def test_fragments_are_batched_then_all_shown_at_the_finish() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        message = AssistantMessage()
        await app.query_one("#log").mount(message)
        await message.append_text("first ")  # shown at once
        for n in range(50):
            await message.append_text(f"word{n} ")  # within one update interval
        live = message.query_one(Markdown)
        await wait_until(pilot, lambda: live.source.startswith("first"), "the first fragment")
        assert "word49" not in live.source  # batched, not one update per fragment
        await message.finish()
        await pilot.pause()
        frozen = message.query_one(FrozenMarkdown)
        assert frozen.source == "first " + "".join(f"word{n} " for n in range(50))
        assert not message.query(Markdown)
