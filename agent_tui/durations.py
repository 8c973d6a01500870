"""How a running time is said everywhere (status bar, running cards, /terminals, the waiting line).

The waiting line's text lives here, not in ``headless_wait``, because the app's status bar says the
same words and a widget must not import a front end's module.
"""

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


def waiting_text(prompt_tokens: int, elapsed_s: float) -> str:
    """``waiting for the model (prompt ≈1,234 tokens) · 12 s`` (no time in the first second)."""
    took = f" · {elapsed_text(elapsed_s)}" if elapsed_s >= 1 else ""
    return f"waiting for the model (prompt ≈{prompt_tokens:,} tokens){took}"
