"""Layered configuration (DESIGN §7), merged in one function and validated once.

defaults < user ``~/.agentrc`` < workspace ``.agentrc`` (its trust-gated keys only once the folder is
trusted: ``config_schema`` decides each key) < environment < CLI flags. A bad file stops with the
file, the key and the reason; nothing is half-applied.

A provider's own ``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` replaces its built-in URL, as the
official SDKs do: below every layer that sets ``base_url``.

The model name, ``base_url`` and ``api_key_env`` belong to a provider: those set in an ``.agentrc``
go with the provider that file's layer ends up with; those set in the environment or on the command
line go with the provider named beside them (``AGENT_TUI_PROVIDER``, ``--provider``), or with any
provider when none is. When the final provider is another one, they are dropped and the provider's
defaults apply. ``[models.<alias>]`` inherit ``[model]`` the same way.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent_tui import key_env
from agent_tui.config_gate import workspace_layer
from agent_tui.config_schema import SCHEMA
from agent_tui.errors import ConfigError
from agent_tui.paths import user_config_path
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.schema_check import certainly_valid

PROVIDER_DEFAULTS: dict[str, dict[str, str]] = {
    "anthropic": {
        "name": "claude-sonnet-4-5",
        "base_url": "https://api.anthropic.com",
        "api_key_env": "ANTHROPIC_API_KEY",
    },
    "openai": {
        "name": "gpt-4.1",
        "base_url": "https://api.openai.com/v1",
        "api_key_env": "OPENAI_API_KEY",
    },
    # The deployment name and the resource endpoint are the user's own: no default URL.
    "azure-openai": {"name": "gpt-4.1", "base_url": "", "api_key_env": "AZURE_OPENAI_API_KEY"},
    "scripted": {"name": "scripted", "base_url": "", "api_key_env": ""},
}
# The official SDKs' variables for a provider's URL (the LM Studio / Ollama habit).
PROVIDER_URL_ENV = {
    "anthropic": "ANTHROPIC_BASE_URL",
    "openai": "OPENAI_BASE_URL",
    "azure-openai": "AZURE_OPENAI_ENDPOINT",
}
# Model keys that belong to one provider's API (see the module docstring).
PROVIDER_BOUND = ("name", "base_url", "api_key_env")
WORKSPACE_FILE_LABEL = "the workspace .agentrc"

DEFAULT_MAX_TOKENS = 8192
# What a local server gets when [model] leaves them unset (README "Local models").
LOCAL_MAX_TOKENS = 4096
LOCAL_TEMPERATURE = 0.2

DEFAULTS: dict[str, Any] = {
    # No max_tokens: unset, it depends on the server (ModelConfig.reply_tokens).
    "model": {"transport": "httpx", "timeout_s": 600, "max_retries": 4},
    "agent": {"max_rounds": 25},
    "tools": {"auto_approve": False},
}


@dataclass(frozen=True)
class ModelConfig:
    """The model to talk to: provider, name, endpoint, key variable and request settings."""

    provider: str
    name: str
    base_url: str
    api_key_env: str
    transport: str = "httpx"
    wire_api: str | None = None  # openai: "chat" | "responses"; None: by base URL
    vision: bool = True  # False: images reach the model as a text placeholder
    max_tokens: int | None = None  # None: reply_tokens() picks by the server
    context_window: int | None = None
    thinking_budget: int | None = None
    reasoning_effort: str | None = None
    temperature: float | None = None
    script: str | None = None
    chunk_delay_s: float = 0  # scripted provider: pause between streamed chunks
    timeout_s: float = 600
    max_retries: int = 4
    text_tool_calls: str = "auto"  # auto | off: read calls a model writes as text (README)
    count_tokens: str = "auto"  # auto | off: the server's tokenizer near the limit (exact_count)

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None

    def reply_tokens(self, local_server: bool = False) -> int:
        """The ``max_tokens`` to ask for: the configured one, else a default that is smaller for
        a local server (one that said its window: llama.cpp, Ollama, vLLM, LM Studio), where a
        reply that loops runs at a few tokens a second and the window is small."""
        if self.max_tokens is not None:
            return self.max_tokens
        return LOCAL_MAX_TOKENS if local_server else DEFAULT_MAX_TOKENS

    def sampling_temperature(self, local_server: bool = False) -> float | None:
        """The temperature to send: the configured one, else a low one for a local server
        (llama.cpp samples at 0.8 when none is sent: too loose for tool calls), else none."""
        if self.temperature is not None:
            return self.temperature
        return LOCAL_TEMPERATURE if local_server else None


@dataclass(frozen=True)
class Config:
    """The loaded configuration: the model, the merged config tree, and where it came from."""

    model: ModelConfig
    raw: dict[str, Any]  # the merged, validated tree (tools, mcp, participants, ui, models ...)
    workspace: Path
    files: tuple[Path, ...] = ()  # the .agentrc files that were read
    trusted: bool = False
    # Trust-gated keys a workspace .agentrc set that were not applied (folder not trusted):
    # whole sections ("tools") or dotted keys ("model.base_url").
    ignored_untrusted: tuple[str, ...] = ()
    # User-only keys a workspace .agentrc set, never applied however trusted (config_schema NEVER).
    ignored_user_only: tuple[str, ...] = ()
    # Where the model's base_url came from ("--base-url", "OPENAI_BASE_URL", a file); None: default.
    base_url_from: str | None = None
    models: dict[str, ModelConfig] = field(default_factory=dict)
    # The CLI-flag layer it was loaded with, so trusting the folder can reload it (build.apply_trust).
    cli: dict[str, Any] = field(default_factory=dict)
    # Every variable an ``api_key_env`` names, in any applied layer or alias, used or not: kept
    # from child processes (``key_env``).
    api_key_names: tuple[str, ...] = ()

    def section(self, *keys: str) -> Any:
        node: Any = self.raw
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                return None
            node = node[key]
        return node

    @property
    def max_rounds(self) -> int:
        return int(self.raw.get("agent", {}).get("max_rounds", 25))


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # here: with no .agentrc (-p hello's usual case) it is not needed (~2 ms)

    try:
        return tomllib.loads(read_text(path, MAX_TEXT_FILE_BYTES, errors="strict"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=str(path)) from exc
    except UnicodeDecodeError as exc:  # TOML is UTF-8 by definition
        raise ConfigError(
            f"not UTF-8 text (byte {exc.object[exc.start]:#04x} at offset {exc.start})",
            file=str(path),
        ) from None
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(path)) from exc


def validate_layer(tree: dict[str, Any], source: str) -> None:
    """Check one layer (a file's tree) against the schema.

    Raises:
        ConfigError: the first problem, naming ``source`` and the key.
    """
    if certainly_valid(SCHEMA, tree):
        return  # the common case, without importing jsonschema (~57 ms)
    import jsonschema  # imported here: only an invalid (or unusual) config pays for it

    validator = jsonschema.Draft202012Validator(SCHEMA)
    errors = sorted(validator.iter_errors(tree), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        key = ".".join(str(p) for p in err.absolute_path) or None
        if err.validator == "additionalProperties":
            # Name the unknown key itself rather than its parent.
            unknown = sorted(set(err.instance) - set(err.schema.get("properties", {})))
            key = ".".join(filter(None, [key, unknown[0] if unknown else None]))
            raise ConfigError("unknown key (see .agentrc.example)", file=source, key=key)
        raise ConfigError(err.message, file=source, key=key)


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _env_layer(env: dict[str, str]) -> dict[str, Any]:
    model: dict[str, Any] = {}
    if env.get("AGENT_TUI_PROVIDER"):
        model["provider"] = env["AGENT_TUI_PROVIDER"]
    if env.get("AGENT_TUI_MODEL"):
        model["name"] = env["AGENT_TUI_MODEL"]
    if env.get("AGENT_TUI_BASE_URL"):
        model["base_url"] = env["AGENT_TUI_BASE_URL"]
    layer: dict[str, Any] = {"model": model} if model else {}
    if env.get("AGENT_TUI_SANDBOX"):  # workspace-write | read-only | off, as --sandbox
        layer["sandbox"] = {"mode": env["AGENT_TUI_SANDBOX"]}
    return layer


def _pick_provider(model: dict[str, Any], env: dict[str, str]) -> str:
    if "provider" in model:
        return str(model["provider"])
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY"):
        return "openai"
    if env.get("OPENAI_BASE_URL"):  # a local server often needs no key
        return "openai"
    return "anthropic"


def provider_default_url(provider: str, env: dict[str, str]) -> str:
    """The URL a provider uses when no layer sets ``base_url``: its SDK variable, else the API's."""
    variable = PROVIDER_URL_ENV.get(provider)
    if variable and env.get(variable):
        url = env[variable]
        if not re.match(r"^https?://", url):
            raise ConfigError(f"must start with http:// or https:// (got {url!r})", key=variable)
        return url
    return PROVIDER_DEFAULTS[provider]["base_url"]


def model_config(section: dict[str, Any], env: dict[str, str]) -> ModelConfig:
    provider = _pick_provider(section, env)
    defaults = {**PROVIDER_DEFAULTS[provider], "base_url": provider_default_url(provider, env)}
    values = {**defaults, **section, "provider": provider}
    fields = ModelConfig.__dataclass_fields__
    return ModelConfig(**{k: v for k, v in values.items() if k in fields})


def inherit_model(
    base: dict[str, Any], alias: dict[str, Any], env: dict[str, str]
) -> dict[str, Any]:
    """``[models.<alias>]`` on top of ``[model]``: what the alias leaves out comes from ``[model]``,
    except the provider-bound keys when the alias names another provider."""
    if "provider" in alias and alias["provider"] != _pick_provider(base, env):
        base = {k: v for k, v in base.items() if k not in PROVIDER_BOUND}
    return {**base, **alias}


def endpoint_host(model: ModelConfig) -> str | None:
    """``host[:port]`` of the model's URL when it is not the provider's official API, else None.

    Only the host and port: a URL may carry a user name and password.
    """
    official = PROVIDER_DEFAULTS[model.provider]["base_url"]
    if not model.base_url or model.base_url.rstrip("/") == official:
        return None
    parts = urlsplit(model.base_url)
    # Shown on the screen: control characters made visible, never interpreted by the terminal.
    host = "".join(ch if ch.isprintable() else "?" for ch in parts.hostname or model.base_url)
    if ":" in host:
        host = f"[{host}]"  # IPv6
    try:
        port = parts.port
    except ValueError:
        port = None
    return f"{host}:{port}" if port else host


def endpoint_notice(config: Config) -> str | None:
    """One line saying which non-default endpoint requests go to and why, or None."""
    host = endpoint_host(config.model)
    if host is None:
        return None
    source = config.base_url_from or PROVIDER_URL_ENV.get(config.model.provider, "config")
    return f"using endpoint {host} (from {source})"


# /model's name for the model the session started with, so there is a way back to it.
START_ALIAS = "default"


def model_choices(config: Config) -> dict[str, ModelConfig]:
    """What ``/model`` offers: the model the session started with, then ``[models.*]`` (an alias
    the user named ``default`` takes that name)."""
    return {START_ALIAS: config.model, **config.models}


def _in_workspace(model: ModelConfig, workspace: Path) -> ModelConfig:
    """A relative ``script`` path names a file in the workspace, not in the current directory."""
    if model.script and not Path(model.script).is_absolute():
        return dataclasses.replace(model, script=str(workspace / model.script))
    return model


@dataclass
class _Stack:
    """The layers merged so far, and for each provider-bound key the provider it belongs to."""

    env: dict[str, str]
    merged: dict[str, Any] = field(default_factory=lambda: copy.deepcopy(DEFAULTS))
    bound: dict[str, str | None] = field(default_factory=dict)
    base_url_from: str | None = None
    key_names: set[str] = field(default_factory=set)  # every api_key_env a layer names

    def add(self, layer: dict[str, Any], label: str, *, from_file: bool) -> None:
        self.merged = _merge(self.merged, layer)
        section = layer.get("model", {})
        for named in [section, *layer.get("models", {}).values()]:
            if isinstance(named, dict) and named.get("api_key_env"):
                self.key_names.add(str(named["api_key_env"]))
        # A file's keys go with the provider its layer ends up with; a run's (env, flags) with
        # the provider named beside them, or none.
        owner = _pick_provider(self.merged["model"], self.env) if from_file else None
        owner = section.get("provider", owner)
        for key in PROVIDER_BOUND:
            if key in section:
                self.bound[key] = owner
        if "base_url" in section:
            self.base_url_from = label

    def model_section(self) -> dict[str, Any]:
        """The merged ``[model]`` without the keys that belong to another provider."""
        section: dict[str, Any] = self.merged["model"]
        final = _pick_provider(section, self.env)
        for key, owner in self.bound.items():
            if owner is not None and owner != final and key in section:
                del section[key]
                if key == "base_url":
                    self.base_url_from = None
        return section


def _untrusted_providers(
    tree: dict[str, Any], ignored: tuple[str, ...]
) -> tuple[str | None, dict[str, str]]:
    """The providers an untrusted workspace file named but may not set: ``[model]``'s, and each
    alias's (by alias name)."""
    model = tree.get("model", {}).get("provider") if "model.provider" in ignored else None
    aliases = {
        alias: str(section["provider"])
        for alias, section in tree.get("models", {}).items()
        if f"models.{alias}.provider" in ignored
    }
    return model, aliases


def _without_model_name(
    layer: dict[str, Any], ignored: tuple[str, ...]
) -> tuple[dict[str, Any], tuple[str, ...]]:
    model = layer.get("model", {})
    if "name" not in model:
        return layer, ignored
    rest = {k: v for k, v in model.items() if k != "name"}
    layer = {k: v for k, v in layer.items() if k != "model"} | ({"model": rest} if rest else {})
    return layer, (*ignored, "model.name")


def _display(path: Path) -> str:
    try:
        return "~/" + path.resolve().relative_to(Path.home().resolve()).as_posix()
    except ValueError:
        return str(path)


def load_config(
    workspace: Path,
    *,
    cli: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    trusted: bool = False,
    user_file: Path | None = None,
) -> Config:
    """Read, merge and validate every layer.

    Args:
        workspace: the workspace root (its ``.agentrc`` is read if present).
        cli: overrides from flags, shaped like the file (``{"model": {"name": ...}}``). A model
            name that is a ``[models.<alias>]`` selects that alias.
        env: the environment (defaults to ``os.environ``).
        trusted: whether the workspace is trusted (its trust-gated keys apply).
        user_file: the user-level file (defaults to ``~/.agentrc``).

    Raises:
        ConfigError: a file is unreadable, not TOML, or breaks the schema.
    """
    env = dict(os.environ if env is None else env)
    stack = _Stack(env)
    read = _add_files(stack, user_file or user_config_path(), workspace / ".agentrc", trusted)
    stack.add(_env_layer(env), "AGENT_TUI_BASE_URL", from_file=False)
    chosen = _add_cli(stack, cli, read.foreign_aliases)
    validate_layer(stack.merged, "command line and environment")
    section = stack.model_section()
    models = _alias_models(stack, section, workspace, read.foreign_aliases)
    model, base_url_from = _chosen_model(stack, section, chosen, workspace)
    key_names = {model.api_key_env, *(m.api_key_env for m in models.values()), *stack.key_names}
    api_key_names = tuple(sorted(name for name in key_names if name))
    key_env.hide(api_key_names)
    return Config(
        model=model,
        raw=stack.merged,
        workspace=workspace,
        files=tuple(read.files),
        trusted=trusted,
        ignored_untrusted=read.ignored,
        ignored_user_only=read.user_only,
        base_url_from=base_url_from,
        models=models,
        cli=copy.deepcopy(cli or {}),
        api_key_names=api_key_names,
    )


@dataclass
class _FilesRead:
    """The files merged into a stack, and what the workspace's was not allowed to set."""

    files: list[Path] = field(default_factory=list)
    ignored: tuple[str, ...] = ()  # keys that wait for trust
    user_only: tuple[str, ...] = ()  # keys a workspace never sets
    foreign_aliases: dict[str, str] = field(default_factory=dict)  # alias -> its other provider


def _add_files(stack: _Stack, user_path: Path, ws_path: Path, trusted: bool) -> _FilesRead:
    """Merge ``~/.agentrc``, then the workspace's ``.agentrc`` as far as trust allows."""
    read = _FilesRead()
    for path, is_workspace in ((user_path, False), (ws_path, True)):
        if not path.is_file() or (is_workspace and path.resolve() == user_path.resolve()):
            continue
        layer = _read_toml(path)
        validate_layer(layer, str(path))
        read.files.append(path)
        if is_workspace:
            layer = _gate_workspace_file(stack, layer, trusted, read)
        label = WORKSPACE_FILE_LABEL if is_workspace else _display(path)
        stack.add(layer, label, from_file=True)
    return read


def _gate_workspace_file(
    stack: _Stack, layer: dict[str, Any], trusted: bool, read: _FilesRead
) -> dict[str, Any]:
    """The workspace file's layer without the keys it may not set; what was left out goes in
    ``read``."""
    original = layer
    layer, read.ignored, read.user_only = workspace_layer(layer, trusted=trusted)
    meant_for, read.foreign_aliases = _untrusted_providers(original, read.ignored)
    if meant_for not in (None, _pick_provider(stack.merged["model"], stack.env)):
        # Its model name is for the provider it may not set yet: it waits for trust too.
        layer, read.ignored = _without_model_name(layer, read.ignored)
    return layer


@dataclass
class _CliModel:
    """What the flags say about the model: an alias ``--model`` selected, and the other flags."""

    alias: str | None
    alias_section: dict[str, Any]
    flags: dict[str, Any]


def _add_cli(
    stack: _Stack, cli: dict[str, Any] | None, foreign_aliases: dict[str, str]
) -> _CliModel:
    """Merge the flags; ``--model ALIAS`` selects that alias (the other model flags go over it)."""
    cli_layer = copy.deepcopy(cli or {})
    cli_model = cli_layer.get("model", {})
    aliases = stack.merged.get("models", {})
    before_cli = _pick_provider(stack.merged["model"], stack.env)
    alias = cli_model.get("name") if cli_model.get("name") in aliases else None
    if alias is not None and foreign_aliases.get(alias, before_cli) != before_cli:
        alias = None  # an untrusted alias for another provider: just a model name
    if alias is not None:
        del cli_model["name"]  # --model ALIAS: the alias's settings, under the other flags
    stack.add(cli_layer, "--base-url", from_file=False)
    return _CliModel(alias, aliases[alias] if alias is not None else {}, cli_model)


def _alias_models(
    stack: _Stack, section: dict[str, Any], workspace: Path, foreign_aliases: dict[str, str]
) -> dict[str, ModelConfig]:
    """The ``[models.<alias>]`` a session can switch to, each over the merged ``[model]``."""
    provider = _pick_provider(section, stack.env)
    return {
        name: _in_workspace(
            model_config(inherit_model(section, sub, stack.env), stack.env), workspace
        )
        for name, sub in stack.merged.get("models", {}).items()
        # An alias for another provider whose provider key was not applied (untrusted) would
        # be a different model than it says: not offered.
        if foreign_aliases.get(name, provider) == provider
    }


def _chosen_model(
    stack: _Stack, section: dict[str, Any], chosen: _CliModel, workspace: Path
) -> tuple[ModelConfig, str | None]:
    """The run's model, and where its base URL came from (None: the provider's default)."""
    base_url_from = stack.base_url_from
    if chosen.alias is not None:
        section = {**inherit_model(section, chosen.alias_section, stack.env), **chosen.flags}
        if "base_url" in chosen.alias_section and "base_url" not in chosen.flags:
            base_url_from = f"[models.{chosen.alias}]"
    if "base_url" not in section:
        base_url_from = None  # the provider's default (or its SDK variable)
    return _in_workspace(model_config(section, stack.env), workspace), base_url_from
