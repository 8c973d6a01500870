"""text_safety: no character a terminal acts on (or hides text with) survives ``visible()``."""

from __future__ import annotations

import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from agent_tui.text_safety import drop_unsafe, one_line, visible

C0 = {chr(c) for c in range(0x20)} | {"\x7f"}
C1 = {chr(c) for c in range(0x80, 0xA0)}
BIDI = {chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C]}
ZERO_WIDTH = {"\u200b", "\u200c", "\u200d", "\u2060", "\ufeff"}
FORBIDDEN = (C0 - {"\t", "\n"}) | C1 | BIDI | ZERO_WIDTH
ALL_FORMAT = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"}

# Text weighted towards the dangerous characters, mixed with anything else.
hostile = st.lists(
    st.one_of(
        st.sampled_from(sorted(FORBIDDEN | {"\r\n", "\t", "\n", "[2K", "]0;"})),
        st.characters(),
    )
).map("".join)


@given(hostile)
def test_visible_leaves_no_control_bidi_or_zero_width_character(text: str) -> None:
    shown = visible(text)
    assert not FORBIDDEN & set(shown)
    assert not ALL_FORMAT & set(shown)


@given(hostile)
def test_one_line_leaves_no_newline_or_tab_either(text: str) -> None:
    shown = one_line(text)
    assert not (FORBIDDEN | {"\n", "\t"}) & set(shown)


@given(hostile)
def test_visible_keeps_every_safe_character_in_order(text: str) -> None:
    # Nothing is dropped silently: removing the stand-ins' inputs from both sides leaves the same.
    safe = [c for c in text if c not in FORBIDDEN and c not in ALL_FORMAT and c != "\r"]
    shown = visible(text)
    it = iter(shown)
    assert all(any(c == s for s in it) for c in safe)


@given(hostile)
def test_drop_unsafe_keeps_the_width_and_leaves_nothing_dangerous(text: str) -> None:
    dropped = drop_unsafe(text)
    assert not (FORBIDDEN | {"\n", "\t"}) & set(dropped)
    # What a terminal draws, one character at a time (Rich joins ZWJ sequences when measuring).
    assert sum(map(cell_len, dropped)) == sum(map(cell_len, text))


def test_every_unicode_format_character_is_made_visible() -> None:
    # The module hard-codes the Cf ranges; this catches a Unicode update adding one.
    missing = [f"U+{ord(c):04X}" for c in sorted(ALL_FORMAT) if visible(c) == c]
    assert missing == []


def test_the_attack_strings_show_what_they_hold() -> None:
    assert visible("rm -rf victim '\x1b[2K\x1b[1G ls -la'") == "rm -rf victim '␛[2K␛[1G ls -la'"
    assert visible("\x1b]0;pwned\x07") == "␛]0;pwned␇"
    assert visible("safe\rrm -rf ~") == "safe␍rm -rf ~"
    assert visible("\x9b2K") == "\\x9b2K"
    assert visible("evil\u202egnp.sh") == "evil\\u202egnp.sh"
    assert visible("a\u200bb") == "a\\u200bb"
    assert visible("line one\r\nline two\tcol") == "line one\nline two\tcol"
    assert one_line("done\n● Ran ls") == "done␊● Ran ls"


def test_plain_text_is_returned_unchanged() -> None:
    text = "git log --oneline -5 | head # naïve — ✓ 漢字 👍"
    assert visible(text) is text
