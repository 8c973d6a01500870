"""What a workspace's own ``.agentrc`` may set, applied from the schema's decisions.

``config_schema`` decides each key once (``WORKSPACE``: any, trusted or never); this module walks a
workspace file's tree alongside the schema and drops what the folder may not set yet, naming each
dropped key so the user is told (DESIGN §5).
"""

from __future__ import annotations

from typing import Any

from agent_tui.config_schema import ANY, NEVER, SCHEMA, TRUSTED, WORKSPACE


def workspace_layer(
    tree: dict[str, Any], *, trusted: bool
) -> tuple[dict[str, Any], tuple[str, ...], tuple[str, ...]]:
    """Split a workspace ``.agentrc`` tree into what applies and what does not.

    Args:
        tree: the file's (validated) tree.
        trusted: whether the user trusts the folder.

    Returns:
        The tree to merge; the trust-gated keys left out (``"tools"``, ``"model.base_url"``,
        ``"models.fast.api_key_env"``); the user-only keys left out (``"mcp.input_values"``).
        User-only keys go first, so a section holding nothing else asks no trust question.
    """
    kept, never = _strip(tree, SCHEMA, ANY, "", {NEVER})
    gated: list[str] = []
    if not trusted:
        kept, gated = _strip(kept, SCHEMA, ANY, "", {TRUSTED})
    return kept, tuple(gated), tuple(never)


def format_keys(keys: tuple[str, ...] | list[str]) -> str:
    """``("tools", "model.base_url")`` -> ``[tools], model.base_url`` (sections in brackets)."""
    return ", ".join(key if "." in key else f"[{key}]" for key in keys)


def _child(schema: dict[str, Any], key: str) -> dict[str, Any]:
    found = schema.get("properties", {}).get(key)
    if found is None and isinstance(schema.get("additionalProperties"), dict):
        found = schema["additionalProperties"]
    return found if isinstance(found, dict) else {}


def _strip(
    node: dict[str, Any], schema: dict[str, Any], inherited: str, path: str, drop: set[str]
) -> tuple[dict[str, Any], list[str]]:
    kept: dict[str, Any] = {}
    dropped: list[str] = []
    for key, value in node.items():
        child = _child(schema, key)
        decision = child.get(WORKSPACE, inherited)
        where = f"{path}.{key}" if path else key
        if decision in drop:
            dropped.append(where)
            continue
        if isinstance(value, dict) and value:
            inner, inner_dropped = _strip(value, child, decision, where, drop)
            dropped += inner_dropped
            if not inner:
                continue  # emptied by the gate: it must not look like a setting (or an alias)
            value = inner
        kept[key] = value
    return kept, dropped
