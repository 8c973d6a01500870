"""The early screen's frame (early_screen/paint.py): sizes, wide characters, hostile text.

Its look against the app's own frame is checked in a real terminal: tests/ui/test_tmux.py
(``tmux_early_screen_check.sh`` compares the footer and the prompt's line byte for byte).
"""

from __future__ import annotations

import re

import pytest

from agent_tui.early_screen.paint import Painter, cells, pad, tail

SGR_OR_MOVE = re.compile(r"\x1b\[[0-9;]*[mH]")


def rows(painted: str) -> list[str]:
    """The frame's text by row (each row starts with a cursor move)."""
    return [SGR_OR_MOVE.sub("", part) for part in re.split(r"\x1b\[\d+;1H", painted)]


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40), (20, 6)])
def test_every_row_is_exactly_the_width(width: int, height: int) -> None:
    painted = Painter("256").frame(width, height, "~/ws", "")
    lines = rows(painted)
    assert len(lines) == height
    assert all(cells(line) == width for line in lines), [cells(line) for line in lines]


def test_the_rows_hold_the_status_the_prompt_and_the_hints() -> None:
    lines = rows(Painter("truecolor").frame(100, 30, "~/project", ""))
    assert lines[0].startswith(" ○ starting │ ~/project")
    assert lines[-3] == "─" * 100
    assert lines[-2].startswith(" Ask anything · / commands · @ participants")
    assert lines[-1].startswith(" ^C^C Quit  ⏎ Send  ^J Newline  ⇧⇥ Mode  ^t Tools  f1 Help ")
    assert lines[-1].endswith("▏^p palette ")


def test_typed_text_shows_its_end_and_wide_characters_count_twice() -> None:
    painter = Painter("256")
    row = SGR_OR_MOVE.sub("", painter.prompt_row(20, 6, "first line\n一二三四五六七八九十"))
    assert cells(row) == 20
    # The padding, 16 columns of text (a 17th would split a character), the cursor, one column
    # left over, the padding.
    assert row == " 三四五六七八九十   "
    assert tail("abc", 2) == "bc" and pad("一二", 3) == "一 "


@pytest.mark.parametrize("hostile", ["\x1b]0;pwned\x07", "\x1b[2J", "\r\x08\x9b31m", "\u202e"])
def test_control_characters_never_reach_the_terminal(hostile: str) -> None:
    """A folder named with escape sequences, or typed text holding them: shown as ``?``."""
    painter = Painter("truecolor")
    for painted in (
        painter.frame(60, 10, f"~/ws{hostile}", ""),
        painter.prompt_row(60, 10, f"typed{hostile}"),
    ):
        text = SGR_OR_MOVE.sub("", painted)
        assert not any(not c.isprintable() for c in text), repr(text)
