"""How a running time is said everywhere (status bar, running cards, /terminals, the waiting line)."""

from __future__ import annotations


def elapsed_text(seconds: float) -> str:
    """``7 s``, ``2 min 05 s``, ``1 h 02 min``: whole units, for a line that ticks once a second."""
    whole = max(int(seconds), 0)
    if whole < 60:
        return f"{whole} s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"
