"""What is typed on the early screen: the bytes a terminal sends, read as the prompt would.

Printable text (UTF-8, split across reads or not), Backspace, Ctrl+U, Enter (a message, sent once
the app is up; after a ``\\`` a newline, as in the app), a bracketed paste (newlines kept,
nothing in it sends), Ctrl+C (twice: quit). Other keys
(arrows, function keys, Alt+…) arrive as escape sequences and are dropped: they would move a
cursor the early screen does not have. Control characters inside a paste are dropped too, as the
app's prompt drops them (tabs and newlines stay).
"""

from __future__ import annotations

import codecs

PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
ENTER = ("\r", "\n")
BACKSPACE = ("\x7f", "\x08")
CTRL_C = "\x03"
CTRL_U = "\x15"
ESC = "\x1b"


class Typed:
    """The messages sent with Enter, the prompt's text after them, and whether to quit."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.text = ""
        self.quit = False
        self._ctrl_c = 0
        self._pending = ""  # an escape sequence (or paste) not complete yet
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> None:
        """Take bytes as read from the terminal."""
        self._pending += self._decoder.decode(data)
        while self._pending and not self.quit:
            if not self._step():
                return  # the rest is an incomplete sequence: wait for more

    def _step(self) -> bool:
        """Take one key (or a whole paste) off ``_pending``; False if it needs more bytes."""
        text = self._pending
        if text.startswith(PASTE_START):
            end = text.find(PASTE_END)
            if end < 0:
                return False
            self._add(_pasted(text[len(PASTE_START) : end]))
            self._pending = text[end + len(PASTE_END) :]
            return True
        if text.startswith(ESC):
            length = _escape_length(text)
            if length == 0:
                return False
            self._pending = text[length:]
            return True
        self._pending = text[1:]
        self._key(text[0])
        return True

    def _key(self, char: str) -> None:
        if char == CTRL_C:
            self._ctrl_c += 1
            self.quit = self._ctrl_c >= 2
            return
        self._ctrl_c = 0
        if char in ENTER:
            self._enter()
        elif char in BACKSPACE:
            self.text = self.text[:-1]
        elif char == CTRL_U:
            self.text = ""
        elif char.isprintable():
            self.text += char

    def _enter(self) -> None:
        if self.text.endswith("\\"):
            self.text = self.text[:-1] + "\n"
        elif self.text.strip():
            self.sent.append(self.text.strip())
            self.text = ""

    def _add(self, text: str) -> None:
        self._ctrl_c = 0
        self.text += text


def _pasted(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "".join(c for c in text if c.isprintable() or c in "\n\t")


def _escape_length(text: str) -> int:
    """How many characters the escape sequence at the start of ``text`` takes (0: incomplete).

    CSI (ESC [ … final byte), SS3 (ESC O x), and ESC + one character (Alt+key) are whole keys.
    """
    if len(text) < 2:
        return 0
    if text[1] == "[":
        for i in range(2, len(text)):
            if "\x40" <= text[i] <= "\x7e":
                return i + 1
        return 0
    if text[1] == "O":
        return 3 if len(text) >= 3 else 0
    return 2
