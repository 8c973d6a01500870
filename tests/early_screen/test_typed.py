"""The keys typed on the early screen, read from the bytes a terminal sends (early_screen/typed.py)."""

from __future__ import annotations

import pytest

from agent_tui.early_screen.typed import Typed


def fed(*chunks: bytes) -> Typed:
    typed = Typed()
    for chunk in chunks:
        typed.feed(chunk)
    return typed


def test_text_split_anywhere_even_inside_a_character() -> None:
    data = "héllo 世界 👋".encode()
    for cut in range(len(data) + 1):
        assert fed(data[:cut], data[cut:]).text == "héllo 世界 👋"


def test_enter_sends_and_what_follows_is_the_next_draft() -> None:
    typed = fed(b"one\rtwo\n  \rthree")
    assert typed.sent == ["one", "two"]
    assert typed.text == "  three"  # a blank line sends nothing and stays, as in the app


def test_backslash_enter_is_a_newline_as_in_the_app() -> None:
    typed = fed(b"line one\\\rline two\r")
    assert typed.sent == ["line one\nline two"]


def test_backspace_takes_a_whole_character_and_ctrl_u_the_line() -> None:
    assert fed("añ€".encode(), b"\x7f").text == "añ"
    assert fed(b"abc\x08").text == "ab"
    assert fed(b"abc\x15de").text == "de"


@pytest.mark.parametrize(
    "keys",
    [
        b"\x1b[A\x1b[B\x1b[1;5C",  # arrows, Ctrl+Right
        b"\x1bOP\x1b[15~",  # F1 (SS3), F5
        b"\x1bb\x1bf",  # Alt+b, Alt+f
        b"\x1b[27;3;13~",  # Alt+Enter in modifyOtherKeys
        b"\x01\x02\x04\x07\x1a",  # Ctrl+A, B, D, G, Z
    ],
)
def test_other_keys_are_dropped_whole(keys: bytes) -> None:
    typed = fed(b"ab", keys, b"c")
    assert (typed.text, typed.sent, typed.quit) == ("abc", [], False)


def test_a_sequence_split_across_reads_waits_for_its_end() -> None:
    assert fed(b"a\x1b", b"[", b"1;5", b"D", b"b").text == "ab"


def test_a_paste_keeps_its_newlines_and_sends_nothing() -> None:
    typed = fed(b"x\x1b[200~line 1\r\nline 2\rline\x1b]0;t\x07 3\x1b[201~y")
    assert typed.sent == []
    assert typed.text == "xline 1\nline 2\nline]0;t 3y"  # control characters dropped


def test_a_paste_split_across_reads() -> None:
    typed = fed(b"\x1b[200~first\r", b"second\x1b[20", b"1~\r")
    assert typed.sent == ["first\nsecond"]


def test_ctrl_c_twice_quits_and_once_does_not() -> None:
    assert fed(b"ab\x03").quit is False
    assert fed(b"ab\x03c\x03").quit is False  # not twice in a row
    assert fed(b"ab\x03", b"\x03").quit is True
    assert fed(b"\x03\x03more").text == ""  # nothing read after the quit
