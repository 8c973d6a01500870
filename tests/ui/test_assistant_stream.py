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
        # The stream hands fragments to the widget in its own task: wait for it to catch up.
        await wait_until(
            pilot,
            lambda: (
                "".join(h.source for h in message.query(FrozenMarkdown))
                + message.query_one(Markdown).source
                == text
            ),
            "the live widget caught up",
        )
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


def live_blocks(message: AssistantMessage) -> list[tuple[str, str]]:
    """The live Markdown's blocks: (type, source text)."""
    from textual.widgets.markdown import MarkdownBlock

    live = message.query_one(Markdown)
    lines = live.source.splitlines(keepends=True)
    return [
        (type(block).__name__, "".join(lines[block.source_range[0] : block.source_range[1]]))
        for block in live.query_children(MarkdownBlock)
    ]


async def test_text_after_a_fence_is_not_code_when_the_head_froze_inside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Issue 23 §11: the head froze while a fence was open; the text after the fence then showed
    # as code until the end of the answer.
    monkeypatch.setattr(assistant, "STREAM_FPS", 1e9)
    monkeypatch.setattr(assistant, "FREEZE_CHARS", 300)
    # The head freezes once the fence has opened (past 300 characters); what is left stays
    # under 300, so no later freeze parses it afresh.
    code = "".join(f"    value_{n} = compute({n})\n" for n in range(5))
    text = PARAGRAPH * 3 + "```python\n" + code + "```\n\nAfter the fence, plain words.\n"
    app = Host()
    async with app.run_test(size=(100, 40)) as pilot:
        message = AssistantMessage()
        await app.query_one("#log").mount(message)
        for start in range(0, len(text), 40):
            await message.append_text(text[start : start + 40])
            await pilot.pause()
        assert message.query(FrozenMarkdown), "the head froze on the way"
        await wait_until(
            pilot,
            lambda: (
                live_blocks(message)[-1:]
                == [("MarkdownParagraph", "After the fence, plain words.\n")]
            ),
            "the text after the fence as a paragraph",
        )


TABLE = "Here are the keys:\n\n| key | meaning |\n| --- | --- |\n| timeout_s | seconds |\n"


async def test_a_table_never_shows_as_raw_pipes_while_it_streams() -> None:
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        message = AssistantMessage()
        await app.query_one("#log").mount(message)
        seen: list[list[tuple[str, str]]] = []
        for start in range(0, len(TABLE), 3):
            await message.append_text(TABLE[start : start + 3])
            await pilot.pause(1 / assistant.STREAM_FPS)
            await pilot.pause()
            seen.append(live_blocks(message))
        raw = [
            text
            for blocks in seen
            for kind, text in blocks
            if kind != "MarkdownTable" and "|" in text
        ]
        assert raw == []
        assert any(kind == "MarkdownTable" for kind, _ in seen[-1])
