"""Which MCP servers a session has: ``[mcp.servers.NAME]`` plus the workspace's JSON files.

Sources, later wins on a name clash: the workspace's ``.vscode/mcp.json`` (``servers``), its
``.mcp.json`` (``mcpServers``), then ``.agentrc`` (user level, and workspace level once trusted;
``load_config`` already drops an untrusted workspace's ``mcp`` key). The two JSON files live in the
repository, so, like a workspace ``.agentrc``, they are read only when the folder is trusted: a
cloned repo must not be able to start a process on the user's machine.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

from agent_tui.errors import ConfigError

Transport = Literal["stdio", "http", "sse"]
DEFAULT_CONNECT_TIMEOUT_S = 30.0
WORKSPACE_FILES: tuple[tuple[str, str], ...] = (
    (".vscode/mcp.json", "servers"),
    (".mcp.json", "mcpServers"),
)
_VARIABLE = re.compile(r"\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}")


@dataclass(frozen=True)
class ServerConfig:
    """One server, with ``${...}`` variables already expanded.

    Args:
        name: the server's name (``everything``), used in tool names and commands.
        type: ``stdio`` (a subprocess), ``http`` (streamable HTTP) or ``sse`` (legacy HTTP+SSE).
        origin: where it was defined: ``user``, ``workspace`` or the JSON file's relative path.
    """

    name: str
    type: Transport
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    disabled: bool = False
    origin: str = "agentrc"

    def describe(self) -> str:
        if self.type == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.type} {self.url}"


def expand(value: str, workspace: Path, env: dict[str, str]) -> str:
    """Expand ``${workspaceFolder}``, ``${userHome}`` and ``${env:NAME}`` (unset -> empty)."""

    def sub(match: re.Match[str]) -> str:
        if match.group(1) == "workspaceFolder":
            return str(workspace)
        if match.group(1) == "userHome":
            return str(Path.home())
        return env.get(match.group(2), "")

    return _VARIABLE.sub(sub, value)


def _strings(value: Any, where: str, key: str) -> None:
    if not isinstance(value, str):
        raise ConfigError("must be a string", file=where, key=key)


def parse_server(
    name: str, raw: dict[str, Any], *, workspace: Path, env: dict[str, str], origin: str
) -> ServerConfig:
    """Build a ServerConfig from one entry of any of the three formats.

    Raises:
        ConfigError: the entry is not an object, has the wrong types, or lacks ``command``/``url``.
    """
    key = f"servers.{name}"
    if not isinstance(raw, dict):
        raise ConfigError("must be an object", file=origin, key=key)
    kind = raw.get("type") or ("http" if raw.get("url") else "stdio")
    if kind == "streamableHttp":  # spelling used by some clients' configs
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise ConfigError(f"type {kind!r} is not one of stdio, http, sse", file=origin, key=key)
    transport = cast(Transport, kind)

    def text(field_name: str) -> str:
        value = raw.get(field_name, "")
        _strings(value, origin, f"{key}.{field_name}")
        return expand(value, workspace, env)

    def mapping(field_name: str) -> dict[str, str]:
        value = raw.get(field_name) or {}
        if not isinstance(value, dict):
            raise ConfigError(
                "must be an object of strings", file=origin, key=f"{key}.{field_name}"
            )
        for item_key, item in value.items():
            _strings(item, origin, f"{key}.{field_name}.{item_key}")
        return {k: expand(v, workspace, env) for k, v in value.items()}

    args = raw.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise ConfigError("must be a list of strings", file=origin, key=f"{key}.args")
    config = ServerConfig(
        name=name,
        type=transport,
        command=text("command"),
        args=tuple(expand(a, workspace, env) for a in args),
        env=mapping("env"),
        cwd=text("cwd"),
        url=text("url"),
        headers=mapping("headers"),
        disabled=bool(raw.get("disabled", False)),
        origin=origin,
    )
    if kind == "stdio" and not config.command:
        raise ConfigError("a stdio server needs `command`", file=origin, key=key)
    if kind != "stdio" and not re.match(r"^https?://", config.url):
        raise ConfigError(f"an {kind} server needs an http(s) `url`", file=origin, key=key)
    return config


def strip_jsonc(text: str) -> str:
    """Remove ``//`` and ``/* */`` comments and trailing commas (VS Code's mcp.json is JSONC)."""
    out: list[str] = []
    i, n, in_string = 0, len(text), False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        else:
            out.append(ch)
        i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _read_json_servers(path: Path, key: str) -> dict[str, Any]:
    try:
        data = json.loads(strip_jsonc(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(path)) from exc
    except ValueError as exc:
        raise ConfigError(f"not valid JSON: {exc}", file=str(path)) from exc
    servers = data.get(key, {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError("must be an object of servers", file=str(path), key=key)
    return servers


def load_servers(
    agentrc_mcp: dict[str, Any] | None,
    workspace: Path,
    *,
    trusted: bool,
    env: dict[str, str] | None = None,
) -> dict[str, ServerConfig]:
    """Every configured server by name.

    Args:
        agentrc_mcp: the merged ``mcp`` section of the config (``Config.section("mcp")``).
        workspace: the workspace root (``${workspaceFolder}``, and where the JSON files are).
        trusted: whether the workspace is trusted; untrusted workspaces' JSON files are ignored.
        env: the environment for ``${env:NAME}`` (defaults to ``os.environ``).

    Raises:
        ConfigError: a JSON file or an entry is malformed.
    """
    env = dict(os.environ if env is None else env)
    servers: dict[str, ServerConfig] = {}
    if trusted:
        for relative, key in WORKSPACE_FILES:
            path = workspace / relative
            if path.is_file():
                for name, raw in _read_json_servers(path, key).items():
                    servers[name] = parse_server(
                        name, raw, workspace=workspace, env=env, origin=str(path)
                    )
    for name, raw in ((agentrc_mcp or {}).get("servers") or {}).items():
        servers[name] = parse_server(name, raw, workspace=workspace, env=env, origin=".agentrc")
    return servers


def ignored_workspace_files(workspace: Path, *, trusted: bool) -> list[str]:
    """The workspace MCP files that exist but were not read because the folder is untrusted."""
    if trusted:
        return []
    return [rel for rel, _ in WORKSPACE_FILES if (workspace / rel).is_file()]


def connect_timeout(agentrc_mcp: dict[str, Any] | None) -> float:
    return float((agentrc_mcp or {}).get("connect_timeout_s", DEFAULT_CONNECT_TIMEOUT_S))
