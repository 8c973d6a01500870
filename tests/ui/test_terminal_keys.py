"""The terminal's bytes for Alt+Enter and its kin, through the parser the app's driver uses
(issue 23 §8): Textual alone read ESC CR as plain Enter, so steering only ever queued."""

from __future__ import annotations

import pytest
from textual import events
from textual._xterm_parser import XTermParser

from agent_tui.ui.terminal_keys import KeyParser, install


def keys(data: str, parser: XTermParser | None = None) -> list[str]:
    """The key names (or ``paste:TEXT``) parsed from ``data``, fed one character at a time as a
    slow terminal link would, then flushed."""
    parser = parser or KeyParser()
    parsed = [e for ch in data for e in parser.feed(ch)] + list(parser.feed(""))
    return [e.key if isinstance(e, events.Key) else f"paste:{e.text}" for e in parsed]  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ("\x1b\r", "alt+enter"),  # xterm, tmux, VS Code, GNOME Terminal, kitty's legacy mode
        ("\x1b[27;3;13~", "alt+enter"),  # xterm modifyOtherKeys, tmux extended-keys
        ("\x1b[13;3u", "alt+enter"),  # kitty's keyboard protocol
        ("\x1b[27;5;13~", "ctrl+enter"),
        ("\x1b[27;2;13~", "shift+enter"),
        ("\x13", "ctrl+s"),  # the fallback
    ],
)
def test_enter_combinations_are_told_from_enter(data: str, key: str) -> None:
    assert keys(data) == [key]


def test_textual_alone_reads_esc_cr_as_enter() -> None:
    """Why the parser exists: if Textual learns ESC CR, this fails and the module can go."""
    assert keys("\x1b\r", XTermParser()) == ["enter"]


def test_other_input_is_parsed_as_before() -> None:
    data = "ab \r\x1b[A\x1b[200~change step 2\x1b[201~\x1bx"
    assert keys(data) == keys(data, XTermParser())
    assert keys(data) == ["a", "b", "space", "enter", "up", "paste:change step 2", "alt+x"]


def test_install_makes_the_linux_drivers_use_it() -> None:
    from textual.drivers import linux_driver, linux_inline_driver

    install()
    assert linux_driver.XTermParser is KeyParser  # type: ignore[attr-defined]
    assert linux_inline_driver.XTermParser is KeyParser  # type: ignore[attr-defined]
