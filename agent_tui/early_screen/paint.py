"""The early screen's frame: the app's empty first screen, in the app's colours (textual-dark).

The colours are the ones Textual draws the app in (read off its frames, truecolor and as Rich
brings them down to 256); ``tests/early_screen`` compares this frame with the app's own.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from pathlib import Path

# name -> (truecolor RGB, 256-colour index)
COLOURS = {
    "panel": ((36, 47, 56), 17),  # status bar and footer background
    "bar_text": ((226, 227, 229), 253),
    "background": ((18, 18, 18), 233),
    "primary": ((1, 120, 212), 32),  # the line above the prompt
    "prompt": ((30, 30, 30), 234),
    "placeholder": ((120, 120, 120), 243),
    "cursor": ((224, 224, 224), 253),
    "key": ((255, 166, 43), 214),
    "key_text": ((224, 224, 224), 253),
    "separator": ((73, 82, 89), 239),
}
PLACEHOLDER = "Ask anything · / commands · @ participants · # references · F1 help"
# The footer's hints with the default keys ([ui] keys rules the early screen out).
HINTS = (
    *(("^C^C", "Quit"), ("⏎", "Send"), ("^J", "Newline")),
    *(("⇧⇥", "Mode"), ("^t", "Tools"), ("f1", "Help")),
)
PALETTE_KEY = "^p"
PALETTE_HINT = f"▏{PALETTE_KEY} palette "  # the footer keeps a space at its right edge
RESET = "\x1b[0m"


class Painter:
    """Draws the frame and the prompt row for one colour system (``"truecolor"`` or ``"256"``)."""

    def __init__(self, colours: str) -> None:
        self.truecolor = colours == "truecolor"

    def fg(self, name: str) -> str:
        return self._sgr(38, name)

    def bg(self, name: str) -> str:
        return self._sgr(48, name)

    def _sgr(self, base: int, name: str) -> str:
        rgb, index = COLOURS[name]
        if self.truecolor:
            return f"\x1b[{base};2;{rgb[0]};{rgb[1]};{rgb[2]}m"
        return f"\x1b[{base};5;{index}m"

    def frame(self, width: int, height: int, workspace: str, typed: str) -> str:
        """The whole screen, from the top left."""
        parts = [RESET, "\x1b[H", self.bg("panel"), self.fg("bar_text")]
        parts.append(pad(f" ○ starting │ {workspace}", width))
        for row in range(2, height - 2):
            parts.append(f"\x1b[{row};1H{self.bg('background')}{' ' * width}")
        parts.append(f"\x1b[{height - 2};1H{self.bg('background')}{self.fg('primary')}")
        parts.append("─" * width)
        parts.append(self.prompt_row(width, height, typed))
        parts.append(f"\x1b[{height};1H{self.footer(width)}{RESET}")
        return "".join(parts)

    def prompt_row(self, width: int, height: int, typed: str) -> str:
        """The prompt's row: the placeholder with the cursor on its first letter, or what was typed
        (its last line, the end of it) with the cursor after it."""
        inner = max(width - 2, 1)
        row = f"\x1b[{height - 1};1H{self.bg('prompt')} "
        cursor = f"{self.bg('cursor')}{self.fg('background')}"
        if not typed:
            text = pad(PLACEHOLDER, inner)
            rest = f"{self.bg('prompt')}{self.fg('placeholder')}{text[1:]} "
            return f"{row}{cursor}{text[0]}{rest}{RESET}"
        line = tail(visible(typed.rsplit("\n", 1)[-1]), inner - 1)
        after = " " * (inner - 1 - cells(line))
        return f"{row}{self.fg('bar_text')}{line}{cursor} {self.bg('prompt')}{after} {RESET}"

    def footer(self, width: int) -> str:
        """The key hints, cut where the palette's hint at the right edge begins."""
        key, label = "\x1b[1m" + self.fg("key"), "\x1b[22m" + self.fg("key_text")
        room = max(width - cells(PALETTE_HINT), 0)
        out = [self.bg("panel")]
        for hint_key, hint_label in HINTS:
            for text, style in ((f" {hint_key} ", key), (f"{hint_label} ", label)):
                piece = cut(text, room)
                out.append(style + piece)
                room -= cells(piece)
        out.append("\x1b[39m" + " " * room)  # the gap in the default colour, as Textual sends it
        out.append(f"{self.fg('separator')}▏{key}{PALETTE_KEY}{label} palette\x1b[39m ")
        return "".join(out)


def short_path(path: Path) -> str:
    """The path as the app's status bar shows it (``~`` for the home folder)."""
    home, text = str(Path.home()), str(path)
    return "~" + text[len(home) :] if text.startswith(home + os.sep) or text == home else text


def visible(text: str) -> str:
    """Control characters (a folder named with escape sequences) as ``?``: never sent raw."""
    return "".join(c if c.isprintable() else "?" for c in text)


def cells(text: str) -> int:
    """Terminal columns ``text`` takes (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def cut(text: str, width: int) -> str:
    """The start of ``text`` (control characters made visible) that fits in ``width`` columns."""
    return "".join(_fitting(visible(text), width))


def pad(text: str, width: int) -> str:
    """``text`` cut or padded to exactly ``width`` columns."""
    kept = cut(text, width)
    return kept + " " * (width - cells(kept))


def tail(text: str, width: int) -> str:
    """The end of ``text`` that fits in ``width`` columns."""
    return "".join(reversed(_fitting(reversed(text), width)))


def _fitting(chars: Iterable[str], width: int) -> list[str]:
    """The characters taken in order while they fit in ``width`` columns."""
    out: list[str] = []
    used = 0
    for char in chars:
        if used + cells(char) > width:
            break
        out.append(char)
        used += cells(char)
    return out
