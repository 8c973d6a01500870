"""``agent-tui mcp get NAME``: a server as configured, and which file defines it.

Every file that defines NAME is listed, in the order a session reads them (a later one wins): the
workspace's ``.vscode/mcp.json`` and ``.mcp.json``, ``~/.agentrc``, the workspace's ``.agentrc``.
The workspace's files count only once the folder is trusted; the others are marked as not used.
Values are shown as written (``${env:TOKEN}`` stays a reference); env and header values are
masked.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.errors import ConfigError, UsageError
from agent_tui.mcp.config import WORKSPACE_FILES, read_json_servers
from agent_tui.mcp.edit import read_file, servers_in, target
from agent_tui.text_safety import visible

MASK = "****"
REFERENCES = re.compile(r"^(\$\{[^}]*\})+$")  # only variables, like ${env:TOKEN}: no secret


@dataclass(frozen=True)
class Definition:
    """One file's definition of a server: the file, the entry and whether it is the workspace's."""

    path: Path
    entry: dict[str, Any]
    from_workspace: bool


def definitions(name: str, workspace: Path) -> list[Definition]:
    """The files that define ``name``, in reading order (the last one wins)."""
    found: list[Definition] = []
    for relative, key in WORKSPACE_FILES:
        path = workspace / relative
        if path.is_file():
            try:
                entries, _ = read_json_servers(path, key)
            except ConfigError as exc:
                sys.stderr.write(f"note: {visible(str(exc))}\n")
                continue
            if isinstance(entries.get(name), dict):
                found.append(Definition(path, entries[name], True))
    for scope in ("user", "workspace"):
        where = target(scope, workspace)
        entry = servers_in(read_file(where), where).get(name)
        if isinstance(entry, dict) and (
            scope == "user" or where.real != target("user", workspace).real
        ):
            found.append(Definition(where.path, entry, scope == "workspace"))
    return found


def show(name: str, workspace: Path, *, as_json: bool) -> int:
    """Print NAME's definitions; the one a session uses first.

    Raises:
        UsageError: no file defines NAME.
    """
    from agent_tui.approvals.trust import is_trusted

    found = definitions(name, workspace)
    if not found:
        raise UsageError(f"no MCP server named {name!r} in .agentrc, .mcp.json or .vscode/mcp.json")
    trusted = is_trusted(workspace)
    usable = [d for d in found if trusted or not d.from_workspace]
    used = usable[-1] if usable else None
    rows = [
        {
            "defined_in": str(d.path),
            "used": d is used,
            "note": _note(d, used, trusted),
            "server": printable(d.entry),
        }
        for d in reversed(found)
    ]
    if as_json:
        sys.stdout.write(json.dumps({"name": name, "definitions": rows}, indent=2) + "\n")
        return 0
    for row, definition in zip(rows, reversed(found), strict=True):
        sys.stdout.write(visible(f"{name}  ({row['defined_in']}{row['note']})") + "\n")
        write_entry(name, definition.entry)
    return 0


def _note(definition: Definition, used: Definition | None, trusted: bool) -> str:
    if definition is used:
        return ""
    if definition.from_workspace and not trusted:
        return "; not used: the folder is not trusted"
    return f"; not used: {used.path} defines it too" if used else ""


def masked(values: dict[str, Any]) -> dict[str, str]:
    """Env or header values as ``****``, except a ``${...}`` reference (it names the secret,
    it is not one)."""
    return {
        str(key): str(value) if REFERENCES.match(str(value)) else MASK
        for key, value in values.items()
    }


def printable(entry: dict[str, Any]) -> dict[str, Any]:
    """An entry as ``mcp get`` shows it: secrets masked."""
    shown = dict(entry)
    for key in ("env", "headers"):
        if isinstance(shown.get(key), dict):
            shown[key] = masked(shown[key])
    oauth = shown.get("oauth")
    if isinstance(oauth, dict) and oauth.get("client_secret"):
        shown["oauth"] = {**oauth, "client_secret": masked({"s": oauth["client_secret"]})["s"]}
    return shown


def write_entry(name: str, entry: dict[str, Any]) -> None:
    for key, value in printable(entry).items():
        if isinstance(value, dict):
            text = ", ".join(f"{k}={v}" for k, v in value.items())
        elif isinstance(value, list):
            text = " ".join(json.dumps(v) if " " in str(v) else str(v) for v in value)
        else:
            text = str(value)
        sys.stdout.write(visible(f"  {key}: {text}", keep_newlines=False) + "\n")
