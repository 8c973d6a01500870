"""Checking a tool call's arguments by hand.

The loop validates input against the manifest's JSON Schema first, but tools are also called directly
(tests, MCP re-exports, ``e`` edit-before-allow in the approval modal), so each file tool checks its own
arguments and turns a bad one into a ToolError the model can act on, never a KeyError or TypeError.
"""

from __future__ import annotations

from typing import Any

from agent_tui.errors import ToolError


def _check_mapping(args: Any) -> dict[str, Any]:
    if not isinstance(args, dict):
        raise ToolError(f"Tool input must be a JSON object, got {type(args).__name__}.")
    return args


def require_str(args: Any, key: str, *, allow_empty: bool = False) -> str:
    """Return the string argument ``key``.

    Raises:
        ToolError: it is missing, not a string, or empty (unless ``allow_empty``).
    """
    value = _check_mapping(args).get(key)
    if value is None:
        raise ToolError(f"Missing required argument `{key}` (a string).")
    if not isinstance(value, str):
        raise ToolError(f"Argument `{key}` must be a string, got {type(value).__name__}.")
    if not allow_empty and not value.strip():
        raise ToolError(f"Argument `{key}` is empty.")
    return value


def optional_str(args: Any, key: str) -> str | None:
    """Return the string argument ``key`` or None when absent, null or blank."""
    value = _check_mapping(args).get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ToolError(f"Argument `{key}` must be a string, got {type(value).__name__}.")
    return value if value.strip() else None


def optional_int(
    args: Any, key: str, *, minimum: int = 1, maximum: int | None = None
) -> int | None:
    """Return the integer argument ``key`` or None.

    Integral floats (``5.0``) and digit strings (``"5"``) are accepted because some models send them;
    booleans are not integers here even though Python says they are.

    Raises:
        ToolError: the value is not an integer or is below ``minimum`` / above ``maximum``.
    """
    value = _check_mapping(args).get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        raise ToolError(f"Argument `{key}` must be an integer, got a boolean.")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        value = int(value.strip())
    if not isinstance(value, int):
        raise ToolError(f"Argument `{key}` must be an integer, got {type(value).__name__}.")
    if value < minimum:
        raise ToolError(f"Argument `{key}` must be at least {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ToolError(f"Argument `{key}` must be at most {maximum}, got {value}.")
    return value


def optional_bool(args: Any, key: str, *, default: bool = False) -> bool:
    """Return the boolean argument ``key`` (``"true"``/``"false"`` strings accepted) or the default."""
    value = _check_mapping(args).get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise ToolError(f"Argument `{key}` must be true or false, got {value!r}.")
