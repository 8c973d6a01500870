"""Near-JSON as small models write it, for the tests of call_repair.py and text_tool_calls.py."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any


def render(value: Any, draw_style: Callable[[], bool], raw_newlines: bool = False) -> str:
    """``value`` written as a model might: each string and word in JSON's or Python's spelling
    (``draw_style`` picks), or JSON with the line breaks inside strings written raw."""
    if isinstance(value, dict):
        items = (
            f"{render(k, draw_style, raw_newlines)}: {render(v, draw_style, raw_newlines)}"
            for k, v in value.items()
        )
        trailing = "," if value and not raw_newlines and draw_style() else ""
        return "{" + ", ".join(items) + trailing + "}"
    if isinstance(value, list):
        return "[" + ", ".join(render(v, draw_style, raw_newlines) for v in value) + "]"
    if raw_newlines:
        text = json.dumps(value, ensure_ascii=False)
        # "\n" escapes (not an escaped backslash before an n) become real line breaks
        return re.sub(r"(?<!\\)((?:\\\\)*)\\n", lambda m: m.group(1) + "\n", text)
    if isinstance(value, (bool, str)) or value is None:
        return repr(value) if draw_style() else json.dumps(value, ensure_ascii=False)
    return repr(value)  # numbers: the same in both
