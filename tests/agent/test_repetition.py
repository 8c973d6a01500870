"""The watch on a reply that repeats itself (agent/repetition.py): any block with words in it,
repeated, is caught soon after the thresholds, wherever the stream's pieces fall; text that does
not repeat (this repository's own code and README) never is."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.agent.repetition import (
    CHECK_EVERY,
    MIN_REPEATS,
    MIN_SPAN,
    Repetition,
    RepetitionWatch,
    without_repeats,
)

ROOT = Path(__file__).resolve().parents[2]
_WORDY = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=12, max_size=400
).filter(
    # words in it, and not itself copies of a shorter block (that one is then the block)
    lambda s: sum(ch.isalnum() for ch in s) >= 12 and (s + s).find(s, 1) == len(s)
)


def stream(text: str, sizes: list[int]) -> tuple[int, RepetitionWatch, object]:
    """Feed ``text`` in pieces of ``sizes`` (cycled); (characters fed when caught, the watch,
    what it found)."""
    watch, fed, index = RepetitionWatch(), 0, 0
    while fed < len(text):
        piece = text[fed : fed + sizes[index % len(sizes)]]
        fed += len(piece)
        index += 1
        if (found := watch.feed(piece)) is not None:
            return fed, watch, found
    return fed, watch, None


@settings(max_examples=200, deadline=None)
@given(
    prefix=st.text(max_size=300),
    block=_WORDY,
    sizes=st.lists(st.integers(1, 40), min_size=1, max_size=5),
)
def test_a_repeated_block_is_caught_soon_after_the_thresholds(
    prefix: str, block: str, sizes: list[int]
) -> None:
    copies = max(MIN_REPEATS, -(-MIN_SPAN // len(block))) + 2
    text = prefix + block * (copies + 40)
    fed, _, found = stream(text, sizes)
    assert found is not None
    # Caught within a few checks of the point where the thresholds are met.
    assert fed <= len(prefix) + len(block) * (copies + 2) + CHECK_EVERY + 40


def test_the_kept_text_has_one_copy() -> None:
    paragraph = "The function returns the sum of the list, then prints it to the screen.\n\n"
    text = "Here is what it does:\n\n" + paragraph * 30
    fed, _, found = stream(text, [7])
    assert isinstance(found, Repetition)
    kept = without_repeats(text[:fed], found)
    assert kept.startswith("Here is what it does:") and kept.count("returns the sum") == 1


def test_a_short_line_or_a_row_of_symbols_is_not_a_loop() -> None:
    for text in ("ok\n" * 20, "-" * 5000, "0, " * 2000, "|---|---|\n" * 300):
        assert stream(text, [13])[2] is None, text[:20]


def test_this_repositorys_code_and_readme_never_look_like_a_loop() -> None:
    files = [ROOT / "README.md", *sorted((ROOT / "agent_tui").rglob("*.py"))]
    for path in files:
        assert stream(path.read_text(encoding="utf-8"), [9, 31])[2] is None, path
