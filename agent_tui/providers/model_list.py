"""The models a provider serves, for ``/model``'s picker.

- OpenAI and compatible servers (vLLM, llama.cpp, LM Studio, Ollama's ``/v1``): ``GET
  {base_url}/models`` -> ``data[].id``; when that is not served, Ollama's own ``GET
  {root}/api/tags`` -> ``models[].name``;
- Anthropic: ``GET {base_url}/v1/models`` -> ``data[].id``, page after page (``has_more``,
  ``last_id`` as ``after_id``).

The names are the server's: only plain one-line names are kept (the picker shows them with control
characters made visible anyway). Any failure means "no list": ``/model NAME`` still takes any name.
"""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import quote

from agent_tui.config import ModelConfig
from agent_tui.providers.anthropic import API_VERSION
from agent_tui.providers.side_requests import SideRequestFailed, server_root, side_requests

logger = logging.getLogger(__name__)

LIST_TIMEOUT_S = 5.0
MAX_MODELS = 1000
MAX_PAGES = 5


def model_names(entries: Any, key: str) -> list[str]:
    """The ``key`` of each entry that is a plausible model name, in the server's order, once."""
    names: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        name = entry.get(key) if isinstance(entry, dict) else None
        if (
            isinstance(name, str)
            and 0 < len(name) <= 200
            and name.isprintable()
            and " " not in name
        ):
            names.append(name)
    return list(dict.fromkeys(names))[:MAX_MODELS]


async def list_models(model: ModelConfig, timeout: float = LIST_TIMEOUT_S) -> list[str] | None:
    """The models ``model``'s provider serves, or None when it does not say (or cannot)."""
    if model.provider not in ("openai", "anthropic"):
        return None  # Azure serves deployments, the scripted provider nothing
    key = model.api_key()
    base = model.base_url.rstrip("/")
    if model.provider == "anthropic":
        headers = {"anthropic-version": API_VERSION, **({"x-api-key": key} if key else {})}
    else:
        headers = {"authorization": f"Bearer {key}"} if key else {}
    async with side_requests(model.base_url, headers, timeout) as fetch:

        async def get_json(url: str) -> Any:
            try:
                status, raw = await fetch("GET", url)
                return json.loads(raw) if status == 200 else None
            except (SideRequestFailed, ValueError) as exc:
                logger.debug("model list %s: %s", url, exc)
                return None

        if model.provider == "anthropic":
            return await _anthropic_pages(get_json, base)
        body = await get_json(f"{base}/models")
        if isinstance(body, dict) and isinstance(body.get("data"), list):
            return model_names(body["data"], "id")
        tags = await get_json(f"{server_root(base)}/api/tags")
        if isinstance(tags, dict) and isinstance(tags.get("models"), list):
            return model_names(tags["models"], "name")
    return None


async def _anthropic_pages(get_json: Any, base: str) -> list[str] | None:
    names: list[str] = []
    after = ""
    for _ in range(MAX_PAGES):
        query = f"?limit=1000&after_id={quote(after)}" if after else "?limit=1000"
        body = await get_json(f"{base}/v1/models{query}")
        if not isinstance(body, dict) or not isinstance(body.get("data"), list):
            return names or None
        names += model_names(body["data"], "id")
        last = body.get("last_id")
        if not body.get("has_more") or not isinstance(last, str) or last == after:
            break
        after = last
    return list(dict.fromkeys(names))[:MAX_MODELS]
