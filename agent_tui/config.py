"""Layered configuration (DESIGN §7), merged in one function and validated once.

defaults < user ``~/.agentrc`` < workspace ``.agentrc`` (its ``tools`` and ``mcp`` only once the
folder is trusted) < environment < CLI flags. A bad file stops with the file, the key and the reason;
nothing is half-applied.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.config_schema import SCHEMA, TRUST_GATED
from agent_tui.errors import ConfigError
from agent_tui.paths import user_config_path
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
    "scripted": {"name": "scripted", "base_url": "", "api_key_env": ""},
}

DEFAULTS: dict[str, Any] = {
    "model": {"transport": "httpx", "max_tokens": 8192, "timeout_s": 600, "max_retries": 4},
    "agent": {"max_rounds": 25},
    "tools": {"auto_approve": False},
}


@dataclass(frozen=True)
class ModelConfig:
    provider: str
    name: str
    base_url: str
    api_key_env: str
    transport: str = "httpx"
    max_tokens: int = 8192
    context_window: int | None = None
    thinking_budget: int | None = None
    reasoning_effort: str | None = None
    temperature: float | None = None
    script: str | None = None
    chunk_delay_s: float = 0  # scripted provider: pause between streamed chunks
    timeout_s: float = 600
    max_retries: int = 4

    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) if self.api_key_env else None


@dataclass(frozen=True)
class Config:
    model: ModelConfig
    raw: dict[str, Any]  # the merged, validated tree (tools, mcp, participants, ui, models ...)
    workspace: Path
    files: tuple[Path, ...] = ()  # the .agentrc files that were read
    trusted: bool = False
    # Trust-gated keys a workspace .agentrc set that were not applied (folder not trusted).
    ignored_untrusted: tuple[str, ...] = ()
    # User-only keys a workspace .agentrc set, never applied however trusted (USER_ONLY).
    ignored_user_only: tuple[str, ...] = ()
    models: dict[str, ModelConfig] = field(default_factory=dict)
    # The CLI-flag layer it was loaded with, so trusting the folder can reload it (build.apply_trust).
    cli: dict[str, Any] = field(default_factory=dict)

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
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=str(path)) from exc
    except OSError as exc:
        raise ConfigError(f"cannot be read: {exc.strerror}", file=str(path)) from exc


def _validate(tree: dict[str, Any], source: str) -> None:
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
    return {"model": model} if model else {}


def _pick_provider(model: dict[str, Any], env: dict[str, str]) -> str:
    if "provider" in model:
        return str(model["provider"])
    if env.get("ANTHROPIC_API_KEY"):
        return "anthropic"
    if env.get("OPENAI_API_KEY"):
        return "openai"
    return "anthropic"


def model_config(section: dict[str, Any], env: dict[str, str]) -> ModelConfig:
    provider = _pick_provider(section, env)
    values = {**PROVIDER_DEFAULTS[provider], **section, "provider": provider}
    fields = ModelConfig.__dataclass_fields__
    return ModelConfig(**{k: v for k, v in values.items() if k in fields})


def _in_workspace(model: ModelConfig, workspace: Path) -> ModelConfig:
    """A relative ``script`` path names a file in the workspace, not in the current directory."""
    if model.script and not Path(model.script).is_absolute():
        return dataclasses.replace(model, script=str(workspace / model.script))
    return model


# Keys only the user's own ~/.agentrc may set, whatever the folder's trust: secrets for MCP
# ${input:ID} variables must not come from a file a cloned repository controls.
USER_ONLY = (("mcp", "input_values"),)


def _without_user_only(layer: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    dropped = []
    for section, key in USER_ONLY:
        if key in layer.get(section, {}):
            rest = {k: v for k, v in layer[section].items() if k != key}
            # An emptied section goes too: it must not look like trust-gated settings.
            layer = {k: v for k, v in layer.items() if k != section} | (
                {section: rest} if rest else {}
            )
            dropped.append(f"{section}.{key}")
    return layer, dropped


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
        cli: overrides from flags, shaped like the file (``{"model": {"name": ...}}``).
        env: the environment (defaults to ``os.environ``).
        trusted: whether the workspace is trusted (its ``tools`` and ``mcp`` keys apply).
        user_file: the user-level file (defaults to ``~/.agentrc``).

    Raises:
        ConfigError: a file is unreadable, not TOML, or breaks the schema.
    """
    env = dict(os.environ if env is None else env)
    user_path = user_file or user_config_path()
    ws_path = workspace / ".agentrc"
    merged = copy.deepcopy(DEFAULTS)
    files: list[Path] = []
    ignored: list[str] = []
    user_only: list[str] = []
    for path, is_workspace in ((user_path, False), (ws_path, True)):
        if not path.is_file() or (is_workspace and path.resolve() == user_path.resolve()):
            continue
        layer = _read_toml(path)
        _validate(layer, str(path))
        files.append(path)
        if is_workspace:
            layer, dropped = _without_user_only(layer)
            user_only += dropped
        if is_workspace and not trusted:
            for key in TRUST_GATED:
                if key in layer:
                    ignored.append(key)
                    layer = {k: v for k, v in layer.items() if k != key}
        merged = _merge(merged, layer)
    for layer in (_env_layer(env), cli or {}):
        chosen = layer.get("model", {}).get("provider")
        if chosen and chosen != merged.get("model", {}).get("provider", chosen):
            # Switching provider: the lower layers' model name, URL and key variable belonged
            # to the other API, so fall back to the new provider's defaults for them.
            for key in ("name", "base_url", "api_key_env"):
                merged["model"].pop(key, None)
        merged = _merge(merged, layer)
    _validate(merged, "command line and environment")
    models = {
        alias: _in_workspace(model_config(section, env), workspace)
        for alias, section in merged.get("models", {}).items()
    }
    return Config(
        model=_in_workspace(model_config(merged.get("model", {}), env), workspace),
        raw=merged,
        workspace=workspace,
        files=tuple(files),
        trusted=trusted,
        ignored_untrusted=tuple(ignored),
        ignored_user_only=tuple(user_only),
        models=models,
        cli=copy.deepcopy(cli or {}),
    )
