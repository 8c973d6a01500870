"""Counted nouns for messages: ``plural(1, "line")`` is "1 line", never "1 lines"."""

from __future__ import annotations


def plural(count: int, noun: str, many: str = "") -> str:
    """``count`` and ``noun``, the noun plural unless the count is exactly 1.

    Args:
        count: how many (thousands are separated: "1,234 lines").
        noun: the singular ("line", "match").
        many: the plural when it is not ``noun + "s"`` ("matches", "entries").

    Returns:
        E.g. "1 line", "0 lines", "12 files", "1 match".
    """
    word = noun if count == 1 else (many or noun + "s")
    return f"{count:,} {word}"
