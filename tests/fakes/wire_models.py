"""Model lists as the real APIs send them (the fields each documents, trimmed to a few models).

- OpenAI ``GET /v1/models``: ``{"object": "list", "data": [{"id", "object": "model", "created",
  "owned_by"}]}`` (https://platform.openai.com/docs/api-reference/models/list);
- Anthropic ``GET /v1/models``: ``{"data": [{"type": "model", "id", "display_name",
  "created_at"}], "has_more", "first_id", "last_id"}``, newest first
  (https://docs.anthropic.com/en/api/models-list);
- Ollama ``GET /api/tags``: ``{"models": [{"name", "model", "modified_at", "size", "digest",
  "details"}]}`` (https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models).
"""

from __future__ import annotations

from typing import Any


def openai_models(names: list[str]) -> dict[str, Any]:
    data = [
        {"id": name, "object": "model", "created": 1_715_367_049 + n, "owned_by": "system"}
        for n, name in enumerate(names)
    ]
    return {"object": "list", "data": data}


def anthropic_models(names: list[str]) -> dict[str, Any]:
    data = [
        {
            "type": "model",
            "id": name,
            "display_name": name.replace("-", " ").title(),
            "created_at": f"2025-0{1 + n % 9}-14T00:00:00Z",
        }
        for n, name in enumerate(names)
    ]
    return {
        "data": data,
        "has_more": False,
        "first_id": names[0] if names else None,
        "last_id": names[-1] if names else None,
    }


def ollama_tags(names: list[str]) -> dict[str, Any]:
    models = [
        {
            "name": name,
            "model": name,
            "modified_at": "2025-05-04T17:37:44.706015396-07:00",
            "size": 1_986_000_000 + n,
            "digest": f"{n:064x}",
            "details": {
                "format": "gguf",
                "family": "qwen2",
                "parameter_size": "1.5B",
                "quantization_level": "Q8_0",
            },
        }
        for n, name in enumerate(names)
    ]
    return {"models": models}
