"""The last line of defence: no control character in a widget's text reaches the terminal.

Every place that shows outside text passes it through ``text_safety.visible()`` first, so the person
sees ``␛[2K`` where the text holds ESC [ 2 K. This filter catches a place that forgot: Textual writes
a segment's text to the terminal as it is, so an ESC left in it would start a real escape sequence.
It removes (rather than shows) what is left, because it runs after layout: those characters take no
cells, so removing them keeps every line the width it was laid out at.

Textual's ``App.get_line_filters()`` is the documented hook for filters over rendered lines (NO_COLOR
uses it); our app adds this one to Textual's own.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from agent_tui.text_safety import drop_unsafe


class ControlCharFilter(LineFilter):
    """Drops control, bidi and zero-width characters from every rendered segment's text."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        cleaned = []
        for segment in segments:
            text, style, control = segment
            # Segments carrying Textual's own control codes (cursor moves) are not text.
            safe = text if control else drop_unsafe(text)
            cleaned.append(segment if safe is text else Segment(safe, style))
        return cleaned
