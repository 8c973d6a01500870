"""Outside text with colours: SGR sequences become Rich styles, everything else is made visible.

A status-line script or a background command colours its output with SGR sequences
(``ESC[32m``), which are worth keeping. Any other control sequence (clear the screen, move the
cursor, retitle the window, a hyperlink) and every other control or invisible character is shown
as a visible stand-in (``text_safety.one_line``): the ESC becomes ``␛`` before Rich reads the text,
so no sequence but the colours reaches the screen.
"""

from __future__ import annotations

import re

from rich.text import Text

from agent_tui.text_safety import one_line

_SGR = re.compile(r"\x1b\[[0-9;:]*m")  # Select Graphic Rendition: colours and text styles


def ansi_line(line: str) -> Text:
    """One line (no newline kept: it shows as ``␊``) with its colours as Rich styles."""
    pieces: list[str] = []
    position = 0
    for match in _SGR.finditer(line):
        pieces += [one_line(line[position : match.start()]), match.group()]
        position = match.end()
    pieces.append(one_line(line[position:]))
    return Text.from_ansi("".join(pieces), no_wrap=True, end="")
