"""Regular expressions compiled on first use instead of at import.

Compiling a pattern takes 0.02-0.7 ms; the ~40 module-level patterns a plain ``agent-tui -p hello``
never uses (text-written calls, overflow errors, sandbox denials, patch headers…) cost ~5 ms of
every start when compiled at import. ``_FENCE = lazy_pattern(r"…")`` is a getter:
``_FENCE().search(text)`` compiles on the first call and then returns the same pattern object from
a cache lookup in C, so a hot path pays a call, not a compile.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable


def lazy_pattern(source: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A getter of ``re.compile(source, flags)``, compiled on its first call."""
    return functools.cache(functools.partial(re.compile, source, flags))
