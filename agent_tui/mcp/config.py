"""Which MCP servers a session has: ``[mcp.servers.NAME]`` plus the workspace's JSON files.

Sources, later wins on a name clash: the workspace's ``.vscode/mcp.json`` (``servers``), its
``.mcp.json`` (``mcpServers``), then ``.agentrc`` (user level, and workspace level once trusted;
``load_config`` already drops an untrusted workspace's ``mcp`` key). The two JSON files live in the
repository, so, like a workspace ``.agentrc``, they are read only when the folder is trusted: a
cloned repo must not be able to start a process on the user's machine.

``${input:ID}`` stays in the ServerConfig as written: its value (often a secret) is looked up only
when the server starts (``mcp.inputs``). Each source declares its own inputs: a JSON file in its
``inputs`` list, ``.agentrc`` in ``[mcp.inputs.ID]``.

``.mcp.json`` is Claude Code's file, so it also gets Claude Code's expansion
(https://code.claude.com/docs/en/mcp, "Environment variable expansion in .mcp.json"): ``${VAR}``
and ``${VAR:-default}`` in ``command``, ``args``, ``env``, ``url`` and ``headers``; an unset
``${VAR}`` without a default is an error, as it is there. The file's credentials usually come
this way, and passing ``${GITHUB_TOKEN}`` on literally would fail without a word.

A server entry that is wrong (a missing ``command``, an undeclared ``${input:ID}``, an unset
``${VAR}``) fails that server alone, saying why (``ServerConfig.problem``); the others start. A
file that cannot be read as a whole (not JSON, no servers object) still stops the run.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from agent_tui.errors import ConfigError
from agent_tui.mcp.types import InputSpec
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text

if TYPE_CHECKING:
    from agent_tui.config import Config

Transport = Literal["stdio", "http", "sse"]
DEFAULT_CONNECT_TIMEOUT_S = 30.0
DEFAULT_CALL_TIMEOUT_S = 120.0
DEFAULT_STARTUP_WAIT_S = 5.0
WORKSPACE_FILES: tuple[tuple[str, str], ...] = (
    (".vscode/mcp.json", "servers"),
    (".mcp.json", "mcpServers"),
)
_VARIABLE = re.compile(r"\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}")
_INPUT = re.compile(r"\$\{input:([^}]*)\}")
# Claude Code's forms (.mcp.json only); ${workspaceFolder}, ${userHome} and ${env:NAME} are tried
# first, so they keep their VS Code meaning there too.
_CLAUDE_VARIABLE = re.compile(
    r"\$\{(?:(workspaceFolder|userHome)|env:([A-Za-z_][A-Za-z0-9_]*)"
    r"|([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?)\}"
)
CLAUDE_CODE_FILE = ".mcp.json"
INPUT_TYPES = ("promptString", "pickString")


@dataclass(frozen=True)
class OAuthSettings:
    """``[mcp.servers.NAME.oauth]``: a client registered in advance with the authorization server.

    Without it agent-tui registers itself (dynamic client registration) or, where the server
    supports them, names itself with a Client ID Metadata Document.
    """

    client_id: str = ""
    client_secret: str = ""
    scopes: tuple[str, ...] = ()
    # An HTTPS URL where a Client ID Metadata Document about this client is published: used as
    # the client ID by servers that support them (instead of registering).
    client_metadata_url: str = ""
    # "client_credentials": no person signs in; the client authenticates itself with
    # client_secret, or with a JWT signed by private_key_file (machine-to-machine servers).
    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    private_key_file: str = ""
    signing_algorithm: str = "RS256"


@dataclass(frozen=True)
class ServerConfig:
    """One server, with ``${...}`` variables already expanded except ``${input:ID}``.

    Args:
        name: the server's name (``everything``), used in tool names and commands.
        type: ``stdio`` (a subprocess), ``http`` (streamable HTTP) or ``sse`` (legacy HTTP+SSE).
        origin: where it was defined: ``user``, ``workspace`` or the JSON file's relative path.
        inputs: the declared inputs its ``${input:ID}`` variables name, in order of first use.
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
    inputs: tuple[InputSpec, ...] = ()
    oauth: OAuthSettings = field(default_factory=OAuthSettings)
    call_timeout_s: float = DEFAULT_CALL_TIMEOUT_S
    sandbox: bool = False  # stdio: run the server inside the command sandbox (no network)
    # Why the entry cannot be used (file, key and reason); such a server fails instead of starting.
    problem: str = ""

    def strings(self) -> Iterator[str]:
        """Every string that may hold a variable (command, args, env, cwd, url, headers, secret)."""
        yield from (self.command, *self.args, *self.env.values(), self.cwd, self.url)
        yield from self.headers.values()
        yield self.oauth.client_secret

    def with_inputs(self, values: Mapping[str, str]) -> ServerConfig:
        """This config with each ``${input:ID}`` replaced by ``values[ID]`` (what a start uses)."""

        def fill(text: str) -> str:
            return _INPUT.sub(lambda m: values.get(m.group(1), m.group(0)), text)

        return replace(
            self,
            command=fill(self.command),
            args=tuple(fill(a) for a in self.args),
            env={k: fill(v) for k, v in self.env.items()},
            cwd=fill(self.cwd),
            url=fill(self.url),
            headers={k: fill(v) for k, v in self.headers.items()},
            oauth=replace(self.oauth, client_secret=fill(self.oauth.client_secret)),
        )

    def describe(self) -> str:
        if self.problem:
            return "(not started: its entry is wrong)"
        if self.type == "stdio":
            return " ".join([self.command, *self.args])
        return f"{self.type} {self.url}"


def expand(value: str, workspace: Path, env: Mapping[str, str]) -> str:
    """Expand ``${workspaceFolder}``, ``${userHome}`` and ``${env:NAME}`` (unset -> empty).

    ``${input:ID}`` is left as it is: it is filled in when the server starts.
    """

    def sub(match: re.Match[str]) -> str:
        if match.group(1) == "workspaceFolder":
            return str(workspace)
        if match.group(1) == "userHome":
            return str(Path.home())
        return env.get(match.group(2), "")

    return _VARIABLE.sub(sub, value)


def expand_claude(value: str, workspace: Path, env: Mapping[str, str]) -> str:
    """``expand`` plus Claude Code's ``${VAR}`` and ``${VAR:-default}`` (for ``.mcp.json``).

    A default is used when the variable is unset or empty, as in the shell's ``:-``.

    Raises:
        ConfigError: a ``${VAR}`` without a default names a variable that is not set (Claude Code
            refuses such a file too); the caller adds the file and key.
    """

    def sub(match: re.Match[str]) -> str:
        fixed, env_name, name, default = match.groups()
        if fixed is not None or env_name is not None:
            return expand(match.group(0), workspace, env)
        found = env.get(name, "")
        if found:
            return found
        if default is not None:
            return default
        raise ConfigError(
            f"${{{name}}} is not set in the environment and has no default "
            f"(set it, or write ${{{name}:-default}})"
        )

    return _CLAUDE_VARIABLE.sub(sub, value)


def _strings(value: Any, where: str, key: str) -> None:
    if not isinstance(value, str):
        raise ConfigError("must be a string", file=where, key=key)


def parse_inputs(raw: Any, origin: str) -> dict[str, InputSpec]:
    """The ``inputs`` list of a VS Code ``mcp.json``, by id.

    Raises:
        ConfigError: it is not a list of objects with a string ``id``, or an entry's type is not
            ``promptString``/``pickString`` or has fields of the wrong type.
    """
    if not isinstance(raw, list):
        raise ConfigError("must be a list of objects", file=origin, key="inputs")
    specs: dict[str, InputSpec] = {}
    for index, entry in enumerate(raw):
        key = f"inputs[{index}]"
        if not isinstance(entry, dict):
            raise ConfigError("must be an object", file=origin, key=key)
        input_id = entry.get("id")
        if not isinstance(input_id, str) or not input_id:
            raise ConfigError("needs a string `id`", file=origin, key=key)
        key = f"inputs.{input_id}"
        kind = entry.get("type", "promptString")
        if kind not in INPUT_TYPES:
            raise ConfigError(
                f"type {kind!r} is not supported (only {', '.join(INPUT_TYPES)})",
                file=origin,
                key=f"{key}.type",
            )
        options: list[str] = []
        if kind == "pickString":
            for option in entry.get("options") or []:
                value = option.get("value") if isinstance(option, dict) else option
                if not isinstance(value, str):
                    raise ConfigError(
                        "must be a list of strings or {label, value} objects",
                        file=origin,
                        key=f"{key}.options",
                    )
                options.append(value)
            if not options:
                raise ConfigError("a pickString needs `options`", file=origin, key=key)
        specs[input_id] = _input_spec(input_id, entry, origin, key, tuple(options))
    return specs


def parse_agentrc_inputs(raw: Mapping[str, Any] | None) -> dict[str, InputSpec]:
    """The ``[mcp.inputs.ID]`` tables of ``.agentrc`` (already checked by the schema)."""
    return {
        input_id: _input_spec(input_id, entry, ".agentrc", f"mcp.inputs.{input_id}", ())
        for input_id, entry in (raw or {}).items()
    }


def _input_spec(
    input_id: str, entry: Mapping[str, Any], origin: str, key: str, options: tuple[str, ...]
) -> InputSpec:
    description, password = entry.get("description", ""), entry.get("password", False)
    default = entry.get("default")
    _strings(description, origin, f"{key}.description")
    if not isinstance(password, bool):
        raise ConfigError("must be true or false", file=origin, key=f"{key}.password")
    if default is not None:
        _strings(default, origin, f"{key}.default")
    return InputSpec(input_id, description, password, default, options)


def _used_inputs(
    config: ServerConfig, declared: Mapping[str, InputSpec], origin: str, key: str
) -> tuple[InputSpec, ...]:
    used: dict[str, InputSpec] = {}
    for text in config.strings():
        for input_id in _INPUT.findall(text):
            if input_id not in declared:
                where = "[mcp.inputs]" if origin == ".agentrc" else "its `inputs` list"
                raise ConfigError(
                    f"uses ${{input:{input_id}}}, which {where} does not declare",
                    file=origin,
                    key=key,
                )
            used.setdefault(input_id, declared[input_id])
    return tuple(used.values())


def parse_server(
    name: str,
    raw: dict[str, Any],
    *,
    workspace: Path,
    env: dict[str, str],
    origin: str,
    inputs: Mapping[str, InputSpec] | None = None,
    claude_code: bool = False,
) -> ServerConfig:
    """Build a ServerConfig from one entry of any of the three formats.

    Args:
        inputs: the inputs its source declares, for its ``${input:ID}`` variables.
        claude_code: the entry comes from ``.mcp.json``: Claude Code's ``${VAR}`` and
            ``${VAR:-default}`` expand in command, args, env, url and headers.

    Raises:
        ConfigError: the entry is not an object, has the wrong types, lacks ``command``/``url``,
            uses an ``${input:ID}`` that ``inputs`` does not declare, or (``claude_code``) a
            ``${VAR}`` that is not set and has no default.
    """
    key = f"servers.{name}"
    if not isinstance(raw, dict):
        raise ConfigError("must be an object", file=origin, key=key)
    transport = _transport(raw, origin, key)
    entry = _Entry(raw, key, origin, workspace, env, claude_code)
    call_timeout_s, args = entry.call_timeout(), entry.args()  # checked before the expansions
    config = ServerConfig(
        name=name,
        type=transport,
        command=entry.text("command"),
        args=tuple(entry.expanded(a, f"{key}.args") for a in args),
        env=entry.mapping("env"),
        cwd=entry.text("cwd", claude=False),  # not among the fields Claude Code expands
        url=entry.text("url"),
        headers=entry.mapping("headers"),
        disabled=bool(raw.get("disabled", False)),
        origin=origin,
        oauth=_oauth_settings(raw.get("oauth"), workspace, env, origin, f"{key}.oauth"),
        call_timeout_s=call_timeout_s,
        sandbox=bool(raw.get("sandbox", False)),
    )
    if transport == "stdio" and not config.command:
        raise ConfigError("a stdio server needs `command`", file=origin, key=key)
    if transport != "stdio" and not re.match(r"^https?://", config.url):
        raise ConfigError(f"an {transport} server needs an http(s) `url`", file=origin, key=key)
    return replace(config, inputs=_used_inputs(config, inputs or {}, origin, key))


def _transport(raw: dict[str, Any], origin: str, key: str) -> Transport:
    kind = raw.get("type") or ("http" if raw.get("url") else "stdio")
    if kind == "streamableHttp":  # spelling used by some clients' configs
        kind = "http"
    if kind not in ("stdio", "http", "sse"):
        raise ConfigError(f"type {kind!r} is not one of stdio, http, sse", file=origin, key=key)
    return cast(Transport, kind)


@dataclass(frozen=True)
class _Entry:
    """One server entry's fields, type-checked and with their variables expanded; errors name
    the entry's file and key."""

    raw: dict[str, Any]
    key: str  # servers.NAME
    origin: str
    workspace: Path
    env: dict[str, str]
    claude_code: bool  # from .mcp.json: Claude Code's ${VAR} and ${VAR:-default} expand

    def expanded(self, value: str, where: str, claude: bool | None = None) -> str:
        if not (self.claude_code if claude is None else claude):
            return expand(value, self.workspace, self.env)
        try:
            return expand_claude(value, self.workspace, self.env)
        except ConfigError as exc:
            raise ConfigError(exc.reason, file=self.origin, key=where) from None

    def text(self, field_name: str, claude: bool | None = None) -> str:
        value = self.raw.get(field_name, "")
        _strings(value, self.origin, f"{self.key}.{field_name}")
        return self.expanded(value, f"{self.key}.{field_name}", claude)

    def mapping(self, field_name: str) -> dict[str, str]:
        where = f"{self.key}.{field_name}"
        value = self.raw.get(field_name) or {}
        if not isinstance(value, dict):
            raise ConfigError("must be an object of strings", file=self.origin, key=where)
        for item_key, item in value.items():
            _strings(item, self.origin, f"{where}.{item_key}")
        return {k: self.expanded(v, f"{where}.{k}") for k, v in value.items()}

    def args(self) -> list[str]:
        args = self.raw.get("args") or []
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise ConfigError("must be a list of strings", file=self.origin, key=f"{self.key}.args")
        return args

    def call_timeout(self) -> float:
        value = self.raw.get("call_timeout_s", DEFAULT_CALL_TIMEOUT_S)
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise ConfigError(
                "must be a number of seconds above 0",
                file=self.origin,
                key=f"{self.key}.call_timeout_s",
            )
        return float(value)


def _oauth_settings(
    raw: Any, workspace: Path, env: dict[str, str], origin: str, key: str
) -> OAuthSettings:
    if raw is None:
        return OAuthSettings()
    if not isinstance(raw, dict):
        raise ConfigError("must be an object", file=origin, key=key)
    for name in (
        "client_id",
        "client_secret",
        "client_metadata_url",
        "grant",
        "private_key_file",
        "signing_algorithm",
    ):
        _strings(raw.get(name, ""), origin, f"{key}.{name}")
    scopes = raw.get("scopes", [])
    if isinstance(scopes, str):  # "read write", as the OAuth scope parameter spells it
        scopes = scopes.split()
    if not isinstance(scopes, list) or not all(isinstance(s, str) for s in scopes):
        raise ConfigError("must be a list of strings", file=origin, key=f"{key}.scopes")
    return OAuthSettings(
        client_id=raw.get("client_id", ""),
        # ${input:ID} (filled at start) or ${env:NAME}: the secret need not be written here.
        client_secret=expand(raw.get("client_secret", ""), workspace, env),
        scopes=tuple(scopes),
        client_metadata_url=raw.get("client_metadata_url", ""),
        grant=_grant(raw.get("grant", "authorization_code"), origin, f"{key}.grant"),
        private_key_file=expand(raw.get("private_key_file", ""), workspace, env),
        signing_algorithm=raw.get("signing_algorithm", "RS256"),
    )


def _grant(
    value: str, origin: str, key: str
) -> Literal["authorization_code", "client_credentials"]:
    if value not in ("authorization_code", "client_credentials"):
        raise ConfigError(
            f"{value!r} is not one of authorization_code, client_credentials", file=origin, key=key
        )
    return cast(Literal["authorization_code", "client_credentials"], value)


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


def read_json_servers(path: Path, key: str) -> tuple[dict[str, Any], dict[str, InputSpec]]:
    """The file's servers, and the inputs it declares (VS Code's ``inputs``; absent -> none)."""
    try:
        data = json.loads(strip_jsonc(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict")))
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(path)) from exc
    except ValueError as exc:
        raise ConfigError(f"not valid JSON: {exc}", file=str(path)) from exc
    servers = data.get(key, {}) if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        raise ConfigError("must be an object of servers", file=str(path), key=key)
    return servers, parse_inputs(data.get("inputs", []), str(path))


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
                entries, inputs = read_json_servers(path, key)
                for name, raw in entries.items():
                    servers[name] = _server_or_problem(
                        name,
                        raw,
                        workspace=workspace,
                        env=env,
                        origin=str(path),
                        inputs=inputs,
                        claude_code=relative == CLAUDE_CODE_FILE,
                    )
    agentrc_inputs = parse_agentrc_inputs((agentrc_mcp or {}).get("inputs"))
    for name, raw in ((agentrc_mcp or {}).get("servers") or {}).items():
        servers[name] = _server_or_problem(
            name, raw, workspace=workspace, env=env, origin=".agentrc", inputs=agentrc_inputs
        )
    return servers


def _server_or_problem(name: str, raw: Any, *, origin: str, **options: Any) -> ServerConfig:
    """The entry's ServerConfig, or one that only says why it cannot start (``problem``)."""
    try:
        return parse_server(name, raw, origin=origin, **options)
    except ConfigError as exc:
        return ServerConfig(name=name, type="stdio", origin=origin, problem=str(exc))


def ignored_workspace_files(workspace: Path, *, trusted: bool) -> list[str]:
    """The workspace MCP files that exist but were not read because the folder is untrusted."""
    if trusted:
        return []
    return [rel for rel, _ in WORKSPACE_FILES if (workspace / rel).is_file()]


def connect_timeout(agentrc_mcp: dict[str, Any] | None) -> float:
    return float((agentrc_mcp or {}).get("connect_timeout_s", DEFAULT_CONNECT_TIMEOUT_S))


def startup_wait(agentrc_mcp: dict[str, Any] | None) -> float:
    return float((agentrc_mcp or {}).get("startup_wait_s", DEFAULT_STARTUP_WAIT_S))


def user_input_values(config: Config) -> dict[str, str]:
    """``[mcp.input_values]``: only the user's own ``.agentrc`` can set it (``config_schema`` NEVER)."""
    values = config.section("mcp", "input_values") or {}
    return {str(k): str(v) for k, v in values.items()}
