"""Model providers: a registry from ``model.provider`` to a factory, and :func:`make_provider`.

Factories are named as ``"module:attribute"`` strings and imported on first use, so importing this
package (which ``events.py`` does, through ``providers.base``) costs nothing.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.errors import ConfigError

if TYPE_CHECKING:
    from agent_tui.config import ModelConfig
    from agent_tui.providers.base import Provider

PROVIDERS: dict[str, str] = {
    "anthropic": "agent_tui.providers.anthropic:AnthropicProvider",
    "openai": "agent_tui.providers.openai:make_openai",
    "azure-openai": "agent_tui.providers.azure:AzureOpenAIProvider",
    "scripted": "agent_tui.providers.scripted:ScriptedProvider.from_config",
}


def register_provider(name: str, factory: str) -> None:
    """Add a provider: ``factory`` is ``"module:callable"``, called with the ModelConfig."""
    PROVIDERS[name] = factory


def _load(target: str) -> Any:
    module_name, _, attribute = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        obj = getattr(obj, part)
    return obj


def make_provider(model_config: ModelConfig, *, record: str | Path | None = None) -> Provider:
    """Build the provider ``model_config.provider`` names.

    Args:
        model_config: the resolved ``[model]`` section.
        record: a script file to record every assistant turn to (``--record FILE``).

    Raises:
        ConfigError: the provider name is unknown, or its settings are incomplete.
    """
    target = PROVIDERS.get(model_config.provider)
    if target is None:
        known = ", ".join(sorted(PROVIDERS))
        raise ConfigError(
            f"unknown provider {model_config.provider!r} (known: {known})", key="model.provider"
        )
    provider: Provider = _load(target)(model_config)
    if record is not None:
        from agent_tui.providers.recording import RecordingProvider

        provider = RecordingProvider(provider, record)
    return provider
