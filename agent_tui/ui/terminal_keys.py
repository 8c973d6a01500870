"""Keys the terminal sends that Textual's parser reads as other keys: Alt+Enter above all.

xterm, tmux, VS Code's terminal, GNOME Terminal and kitty (without its keyboard protocol) send
Alt+Enter as ESC CR. Textual finds no key for ``"\\x1b\\r"``, waits out the escape delay and
reissues the CR alone: plain Enter, so steering (Alt+Enter while a turn runs) only ever queued
the message. xterm's ``modifyOtherKeys`` form (``CSI 27;3;13~``, also what tmux forwards with
``extended-keys``) came through as a key named ``"\\r"``. kitty's own protocol (``CSI 13;3u``)
already arrives as ``alt+enter``.

:class:`KeyParser` names these sequences before Textual's own table; :func:`install` makes the
Linux drivers use it. The drivers build their parser from the module-level name
``XTermParser`` (Textual has no hook for it), so that name is what is replaced; the subclass
only adds keys, every other sequence is parsed as before.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser

ALT_ENTER = "alt+enter"
# Sequence -> key name. ESC LF needs no entry: Textual reads it as ctrl+j (a newline here).
SEQUENCES = {
    "\x1b\r": ALT_ENTER,  # ESC CR: xterm, tmux, VS Code, GNOME Terminal, kitty (legacy mode)
    "\x1b[27;3;13~": ALT_ENTER,  # xterm modifyOtherKeys=2, tmux extended-keys (xterm format)
    "\x1b[27;2;13~": "shift+enter",
    "\x1b[27;5;13~": "ctrl+enter",
    "\x1b[27;6;13~": "ctrl+shift+enter",
}


class KeyParser(XTermParser):
    """Textual's parser, with the Enter combinations of :data:`SEQUENCES` named."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        # ``alt`` with a lone CR: the ESC CR pair reissued one character at a time (it came
        # split across reads, slower than the escape delay).
        key = ALT_ENTER if alt and sequence == "\r" else SEQUENCES.get(sequence)
        if key is not None:
            return [events.Key(key, None)]
        return super()._sequence_to_key_events(sequence, alt)


def install() -> None:
    """Make the Linux drivers (full screen and inline) parse input with :class:`KeyParser`."""
    from textual.drivers import linux_driver, linux_inline_driver

    linux_driver.XTermParser = KeyParser  # type: ignore[attr-defined]
    linux_inline_driver.XTermParser = KeyParser  # type: ignore[attr-defined]
