"""Keys the terminal sends that Textual's parser reads as other keys: Alt+Enter above all.

xterm, tmux, VS Code's terminal, GNOME Terminal and kitty (without its keyboard protocol) send
Alt+Enter as ESC CR. Textual finds no key for ``"\\x1b\\r"``, waits out the escape delay and
reissues the CR alone: plain Enter, so steering (Alt+Enter while a turn runs) only ever queued
the message. xterm's ``modifyOtherKeys`` form (``CSI 27;3;13~``, also what tmux forwards with
``extended-keys``) came through as a key named ``"\\r"``. kitty's own protocol (``CSI 13;3u``)
already arrives as ``alt+enter``.

With ``[ui] vim``, Esc typed fast before a vi command arrives as ESC and the letter in one read
(tmux sends it so whenever they come within its ``escape-time``, 500 ms by default) and Textual
reads the pair as an Alt key, or as a word motion (ESC b is ``ctrl+left``, ESC f ``ctrl+right``):
Esc then ``b`` moved a word but stayed in insert mode. :attr:`KeyParser.meta_as_escape` (the app
sets it with vim on) splits ESC + a printable character back into Esc and the key, as vi does in
a terminal; ESC ``[`` and ESC ``O`` stay the starts of sequences.

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

    # Class-wide: the driver builds its parser itself, so the app sets this on the class.
    meta_as_escape = False

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        if self.meta_as_escape and _escape_then_key(sequence):
            escape = events.Key("escape", "\x1b")
            return [escape, *super()._sequence_to_key_events(sequence[1], False)]
        # ``alt`` with a lone CR: the ESC CR pair reissued one character at a time (it came
        # split across reads, slower than the escape delay).
        key = ALT_ENTER if alt and sequence == "\r" else SEQUENCES.get(sequence)
        if key is not None:
            return [events.Key(key, None)]
        return super()._sequence_to_key_events(sequence, alt)


def _escape_then_key(sequence: str) -> bool:
    """ESC and one printable character that starts no sequence (ESC [ is CSI, ESC O is SS3)."""
    return (
        len(sequence) == 2
        and sequence[0] == "\x1b"
        and sequence[1].isprintable()
        and sequence[1] not in "[O"
    )


def install() -> None:
    """Make the Linux drivers (full screen and inline) parse input with :class:`KeyParser`."""
    from textual.drivers import linux_driver, linux_inline_driver

    linux_driver.XTermParser = KeyParser  # type: ignore[attr-defined]
    linux_inline_driver.XTermParser = KeyParser  # type: ignore[attr-defined]
