"""Add and remove ``[mcp.servers.NAME]`` in an ``.agentrc``, keeping its comments and layout.

``agent-tui mcp add / add-json / remove`` come here. A change is checked as a session would read
it (the whole file against the schema, then the entry through ``mcp.config.parse_server``) before
anything is written, and the new text must read back as the old one plus (or minus) exactly that
entry; a refused change leaves the file byte for byte as it was. The new file replaces the old one
atomically with its mode kept. A symlinked ``~/.agentrc`` (a dotfiles repository) is written
through; a workspace's ``.agentrc`` only while its target stays inside the workspace, since a
cloned repository chose that link.

tomlkit (which keeps comments, unlike ``tomllib``) is imported here only.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.config import validate_layer
from agent_tui.errors import ConfigError, UsageError
from agent_tui.mcp.config import parse_agentrc_inputs, parse_server
from agent_tui.mcp.types import InputSpec
from agent_tui.paths import user_config_path
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.state_files import write_private

if TYPE_CHECKING:
    import tomlkit.items

Scope = Literal["user", "workspace"]
SCOPES: tuple[Scope, ...] = ("user", "workspace")
# Letters, digits, - and _: the name goes into tool names and /mcp.<server>.<prompt> commands.
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The fields of Claude Code's server JSON (`claude mcp add-json`); agent-tui's own keys also pass.
CLAUDE_FIELDS = ("type", "command", "args", "env", "url", "headers")
NEW_FILE_MODE = {"user": 0o600, "workspace": 0o644}


@dataclass(frozen=True)
class Target:
    """The file a scope edits, and the path it is written through (a symlink's target)."""

    scope: Scope
    path: Path  # as the user knows it (~/.agentrc, WS/.agentrc)
    real: Path  # what is read and replaced
    workspace: Path


def target(scope: Scope, workspace: Path) -> Target:
    """The ``.agentrc`` of ``scope``.

    Raises:
        UsageError: the workspace's ``.agentrc`` is a link out of the workspace.
    """
    path = user_config_path() if scope == "user" else workspace / ".agentrc"
    real = path.resolve()
    if scope == "workspace" and not real.is_relative_to(workspace.resolve()):
        raise UsageError(f"{path} is a link to {real}, outside the workspace: not written")
    return Target(scope, path, real, workspace)


def check_name(name: str) -> None:
    if not NAME.match(name):
        raise UsageError(
            f"server name {name!r}: use letters, digits, - and _ (at most 64 characters)"
        )


def entry_from_json(text: str) -> dict[str, Any]:
    """A server entry from Claude Code's JSON (``{"type": "stdio", "command": ...}``).

    Raises:
        UsageError: not JSON, or not an object.
    """
    try:
        entry = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the server JSON is not valid JSON: {exc}") from exc
    if not isinstance(entry, dict):
        raise UsageError(
            'the server JSON must be an object, e.g. {"command": "npx", "args": [...]}'
        )
    return entry


def pairs(values: list[str], separator: str, flag: str) -> dict[str, str]:
    """``KEY=VALUE`` (``--env``) or ``Name: value`` (``--header``) options as a mapping.

    Raises:
        UsageError: a value without the separator, or with an empty key.
    """
    out: dict[str, str] = {}
    for value in values:
        key, found, rest = value.partition(separator)
        key = key.strip()
        if not found or not key or any(c.isspace() for c in key):
            shape = "KEY=VALUE" if separator == "=" else '"Name: value"'
            raise UsageError(f"{flag} {value!r}: expected {shape}")
        out[key] = rest if separator == "=" else rest.strip()
    return out


def read_file(where: Target) -> str:
    """The file's text ('' when it does not exist yet).

    Raises:
        ConfigError: it cannot be read or is not UTF-8.
    """
    if not where.real.exists():
        return ""
    try:
        return read_text(where.real, MAX_TEXT_FILE_BYTES, errors="strict")
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", file=str(where.path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc}", file=str(where.path)) from exc


def servers_in(text: str, where: Target) -> dict[str, Any]:
    """The ``[mcp.servers]`` entries of a file's text.

    Raises:
        ConfigError: it is not valid TOML.
    """
    try:
        tree = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=str(where.path)) from exc
    servers = tree.get("mcp", {}).get("servers", {}) if isinstance(tree.get("mcp"), dict) else {}
    return servers if isinstance(servers, dict) else {}


def add_server(where: Target, name: str, entry: dict[str, Any], *, force: bool) -> None:
    """Write ``[mcp.servers.NAME]`` = ``entry`` into the file, replacing one only with ``force``.

    Raises:
        UsageError: the name is taken (without ``force``) or not a usable name.
        ConfigError: the entry (or the file) would not load; nothing was written.
    """
    check_name(name)
    text = read_file(where)
    old_servers = servers_in(text, where)
    if name in old_servers and not force:
        raise UsageError(
            f"{where.path} already has an MCP server named {name!r} (--force replaces it)"
        )
    new_text = _edited(text, where, lambda servers: _put(servers, name, entry))
    tree = tomllib.loads(new_text)
    _check_readback(tree, tomllib.loads(text or "\n"), name, entry, where)
    _check_entry(tree, name, where)
    _write(where, new_text)


def remove_server(where: Target, name: str) -> None:
    """Delete ``[mcp.servers.NAME]`` from the file.

    Raises:
        UsageError: the file has no such server.
        ConfigError: the file would not read back as it was without that server.
    """
    text = read_file(where)
    if name not in servers_in(text, where):
        raise UsageError(f"{where.path} has no MCP server named {name!r}")
    new_text = _edited(text, where, lambda servers: servers.remove(name))
    _check_readback(tomllib.loads(new_text), tomllib.loads(text), name, None, where)
    _write(where, new_text)


def _edited(text: str, where: Target, change: Any) -> str:
    """The file's text after ``change(servers_table)``, through tomlkit."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    try:
        document = tomlkit.parse(text)
        mcp = document.get("mcp")
        if mcp is None:
            mcp = tomlkit.table(is_super_table=True)
            document.append("mcp", mcp)
        servers = mcp.get("servers")
        if servers is None:
            servers = tomlkit.table(is_super_table=True)
            mcp.append("servers", servers)
        change(servers)
        return tomlkit.dumps(document)
    except (TOMLKitError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(
            f"its [mcp] section cannot be edited safely ({exc}); edit it by hand",
            file=str(where.path),
        ) from exc


def _put(servers: tomlkit.items.Table, name: str, entry: dict[str, Any]) -> None:
    """Set ``servers[name]``; a replaced table's trailing comments (which tomlkit files under
    it, though they usually introduce the next table) stay."""
    import tomlkit

    table = tomlkit.table()
    for key, value in entry.items():
        if isinstance(value, dict) and key in ("env", "headers"):
            inline = tomlkit.inline_table()
            inline.update(value)
            table[key] = inline
        else:
            table[key] = value
    old = servers.get(name)
    if old is None:
        table.add(tomlkit.nl())  # a blank line before whatever table follows
    else:
        body = old.value.body
        keys = [i for i, (key, _) in enumerate(body) if key is not None]
        for _, item in body[keys[-1] + 1 if keys else 0 :]:
            table.add(item)
    servers[name] = table


def _check_readback(
    new: dict[str, Any], old: dict[str, Any], name: str, entry: Any, where: Target
) -> None:
    """The new text must read as the old one with only ``name`` changed (``entry``; None: gone)."""
    expected = json.loads(json.dumps(old, default=str))
    servers = expected.setdefault("mcp", {}).setdefault("servers", {})
    servers.pop(name, None)
    if entry is not None:
        servers[name] = entry
    actual = json.loads(json.dumps(new, default=str))
    for tree in (expected, actual):  # an emptied [mcp.servers] / [mcp] may stay or go
        if not tree.get("mcp", {}).get("servers"):
            tree.get("mcp", {}).pop("servers", None)
        if not tree.get("mcp"):
            tree.pop("mcp", None)
    if actual != expected:
        raise ConfigError(
            "the edit would change more than that server; edit the file by hand",
            file=str(where.path),
        )


def _check_entry(tree: dict[str, Any], name: str, where: Target) -> None:
    """Load the new file as a session would: the schema, then the entry itself."""
    validate_layer(tree, str(where.path))
    mcp = tree.get("mcp", {})
    declared = dict(parse_agentrc_inputs(mcp.get("inputs")))
    if where.scope == "workspace":  # an ${input:ID} may be declared in ~/.agentrc
        declared = {**_user_inputs(where.workspace), **declared}
    parse_server(
        name,
        mcp["servers"][name],
        workspace=where.workspace,
        env=dict(os.environ),
        origin=str(where.path),
        inputs=declared,
    )


def _user_inputs(workspace: Path) -> dict[str, InputSpec]:
    """``[mcp.inputs]`` of ``~/.agentrc`` (none when it cannot be read: a session would stop)."""
    user = target("user", workspace)
    try:
        mcp = tomllib.loads(read_file(user)).get("mcp", {})
        return parse_agentrc_inputs(mcp.get("inputs") if isinstance(mcp, dict) else None)
    except (ConfigError, tomllib.TOMLDecodeError):
        return {}


def _write(where: Target, text: str) -> None:
    try:
        mode = where.real.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = NEW_FILE_MODE[where.scope]
    try:
        write_private(where.real, text, mode=mode)
    except OSError as exc:
        raise ConfigError(f"cannot be written: {exc}", file=str(where.path)) from exc
