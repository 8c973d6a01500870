"""Front matter: the ``---`` block of ``key: value`` lines at the top of a Markdown file.

Prompt files (``commands/prompt_files.py``), skills (``SKILL.md``) and custom agents
(``subagents/loader.py``) share this one parser; it sits below all three so none of them imports
another for it.
"""

from __future__ import annotations

import re

from agent_tui.errors import ConfigError

_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value


def parse_front_matter(text: str, source: str = "") -> tuple[dict[str, str | list[str]], str]:
    """Split ``---`` front matter (``key: value``, ``key: [a, b]`` or ``- item`` lists) from the body.

    This is the small YAML subset prompt files use; a full YAML parser would be a new dependency.

    Raises:
        ConfigError: the front matter is not closed or has a line that is not ``key: value``.
    """
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---":
        return {}, text.strip()
    try:
        close = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise ConfigError("front matter starts with --- but is never closed", file=source) from None
    meta: dict[str, str | list[str]] = {}
    current: str | None = None
    for number, line in enumerate(lines[1:close], start=2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("- ") and current is not None:
            items = meta.get(current)
            meta[current] = [*(items if isinstance(items, list) else []), _scalar(stripped[2:])]
            continue
        match = _KEY.match(stripped)
        if match is None:
            raise ConfigError(f"line {number} of the front matter is not `key: value`", file=source)
        current, value = match.group(1), match.group(2).strip()
        if value.startswith("[") and value.endswith("]"):
            meta[current] = [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
        else:
            meta[current] = _scalar(value) if value else []
    return meta, "\n".join(lines[close + 1 :]).strip()
