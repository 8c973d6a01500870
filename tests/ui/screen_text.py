"""What the terminal would show: the app's rendered screen as text, and as the bytes written.

Both come from Textual's compositor after every line filter has run, i.e. exactly what the driver
would send to the terminal (the headless test driver just doesn't send it).
"""

from __future__ import annotations

from textual.app import App
from textual.geometry import Region


def screen_lines(app: App[object]) -> list[str]:
    """Each row of the current screen as plain text."""
    strips = app.screen._compositor.render_strips()
    return ["".join(segment.text for segment in strip) for strip in strips]


def region_text(app: App[object], region: Region) -> str:
    """The rows of ``region`` (cropped to its columns), one line each."""
    lines = screen_lines(app)[region.y : region.bottom]
    return "\n".join(line[region.x : region.right] for line in lines)


def terminal_output(app: App[object]) -> str:
    """The escape sequences and text a full repaint of the screen writes to the terminal."""
    update = app.screen._compositor.render_full_update()
    return update.render_segments(app.console)
