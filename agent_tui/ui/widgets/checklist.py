"""A SelectionList whose boxes say on or off in their shape, not only in their colour.

Textual draws every box as ``▐X▌`` and tells selected from not by colour alone, which a theme,
``NO_COLOR`` or a terminal with few colours can erase: here an enabled box holds ``✓`` and a
disabled one is empty.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist

ON, OFF = "✓", " "


class Checklist(SelectionList[str]):
    """A ``SelectionList`` of string values with ``✓`` / blank boxes."""

    DEFAULT_CSS = """
    Checklist > .selection-list--button,
    Checklist > .selection-list--button-highlighted {
        color: $text-muted;
    }
    Checklist > .selection-list--button-selected,
    Checklist > .selection-list--button-selected-highlighted {
        color: $text-success;
        text-style: bold;
    }
    """

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        try:
            selection = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return line
        segments = list(line)
        if len(segments) < 3:
            return line
        inner = segments[1]
        mark = ON if selection.value in self.selected else OFF
        segments[1] = Segment(mark, inner.style, inner.control)
        return Strip(segments, line.cell_length)
