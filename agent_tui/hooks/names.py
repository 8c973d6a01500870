"""Claude Code's tool names and input field names for ours (hooks written for Claude Code).

A hook read from Claude Code's settings files receives ``tool_name == "Bash"`` and
``tool_input.command``, as its script expects; a matcher in any source may name either tool.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agent_tui.lazy_regex import lazy_pattern

# Ours -> Claude Code's. apply_patch edits files like Edit does (Claude Code has no patch tool).
CLAUDE_NAMES: dict[str, str] = {
    "run_in_terminal": "Bash",
    "replace_string_in_file": "Edit",
    "apply_patch": "Edit",
    "create_file": "Write",
    "read_file": "Read",
    "grep_search": "Grep",
    "file_search": "Glob",
    "fetch_webpage": "WebFetch",
}
_PATCH_FILE = lazy_pattern(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)


def claude_name(tool: str) -> str:
    """Claude Code's name for our tool (the name itself for tools it has no counterpart of)."""
    return CLAUDE_NAMES.get(tool, tool)


def names_for_matching(tool: str) -> tuple[str, ...]:
    """Every name a matcher may use for ``tool``: ours, and Claude Code's (``MultiEdit`` too)."""
    claude = claude_name(tool)
    if claude == tool:
        return (tool,)
    if claude == "Edit":
        return (tool, "Edit", "MultiEdit")
    return (tool, claude)


def claude_input(tool: str, value: dict[str, Any], workspace: Path) -> dict[str, Any]:
    """``value`` with Claude Code's field names (``file_path`` absolute, ``pattern``, ``url``…)."""
    out = dict(value)

    def absolute(key: str) -> None:
        raw = out.pop(key, None)
        if isinstance(raw, str):
            out["file_path"] = str(workspace / raw) if not Path(raw).is_absolute() else raw

    if tool == "run_in_terminal":
        if "explanation" in out:
            out["description"] = out.pop("explanation")
    elif tool in ("replace_string_in_file", "create_file", "read_file"):
        absolute("path")
    elif tool in ("grep_search", "file_search"):
        if "query" in out and "pattern" not in out:
            out["pattern"] = out.pop("query")
    elif tool == "fetch_webpage":
        urls = out.pop("urls", None)
        if isinstance(urls, list) and urls:
            out["url"] = str(urls[0])
        if "query" in out:
            out["prompt"] = out.pop("query")
    elif tool == "apply_patch":
        patch = out.get("input")
        found = _PATCH_FILE().findall(patch) if isinstance(patch, str) else []
        if found:  # a formatter hook formats the file the patch touched (the first one)
            out["file_path"] = str(workspace / found[0].strip())
    return out
