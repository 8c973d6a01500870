"""Azure OpenAI (``provider = "azure-openai"``): Chat Completions through the ``openai`` SDK's
``AsyncAzureOpenAI`` client, always the SDK transport.

``base_url`` is the resource's endpoint (``https://RESOURCE.openai.azure.com``), ``name`` the
deployment; the SDK builds ``{base_url}/openai/deployments/{name}/chat/completions?api-version=…``
and sends the key as ``api-key``. The API version comes from ``OPENAI_API_VERSION`` (the SDK's own
variable), else :data:`DEFAULT_API_VERSION`. Bodies, the reducer, retries and error messages are
the openai provider's.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agent_tui.errors import ConfigError
from agent_tui.providers.openai import OpenAIProvider

if TYPE_CHECKING:
    from agent_tui.config import ModelConfig
    from agent_tui.providers.retry import RetryPolicy

DEFAULT_API_VERSION = "2024-10-21"  # the current GA data-plane version


class AzureOpenAIProvider(OpenAIProvider):
    """Streams from an Azure OpenAI deployment."""

    name = "azure-openai"
    official_host = ".openai.azure.com"  # a key is required there

    def __init__(self, model_config: ModelConfig, *, retry: RetryPolicy | None = None) -> None:
        if not model_config.base_url:
            raise ConfigError(
                "azure-openai needs the resource's endpoint: base_url = "
                '"https://RESOURCE.openai.azure.com"',
                key="model.base_url",
            )
        super().__init__(model_config, retry=retry)

    @property
    def endpoint(self) -> str:
        base = self.config.base_url.rstrip("/")
        return f"{base}/openai/deployments/{self.config.name}/chat/completions"

    def build_body(self, request: Any) -> dict[str, Any]:
        # Azure's GA API versions take max_completion_tokens, as api.openai.com does.
        from agent_tui.providers.openai import completions_body

        return completions_body(request, official=True)

    def _wire_events(self, body: dict[str, Any], key: str | None) -> AsyncIterator[dict[str, Any]]:
        return self.sdk_events(body, key)  # Azure goes through the SDK whatever `transport` says

    def base_url_hint(self) -> str:
        if self.config.base_url.rstrip("/").endswith("/v1"):
            return "; the azure-openai base URL is the resource (https://RESOURCE.openai.azure.com)"
        return ""

    def _openai_client(self, openai: Any, key: str | None) -> Any:
        # The rest of the SDK path (the stream, its errors) is the openai provider's.
        if self._sdk_client is None:
            self._sdk_client = openai.AsyncAzureOpenAI(
                api_key=key or "no-key-set",
                azure_endpoint=self.config.base_url,
                api_version=os.environ.get("OPENAI_API_VERSION") or DEFAULT_API_VERSION,
                max_retries=0,  # our retry loop applies
                timeout=self.config.timeout_s,
            )
        return self._sdk_client
