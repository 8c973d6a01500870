"""A fast, conservative JSON Schema check: "certainly valid" or "ask jsonschema".

Importing ``jsonschema`` (with ``referencing``, ``attrs`` and ``rpds``) costs ~57 ms, more than
the rest of a ``-p`` start-up's config handling together. Nearly every value checked at start-up
(the .agentrc layers) and nearly every tool call's input is valid, so this module walks the small
subset of Draft 2020-12 that our schemas use and answers ``True`` only when the value certainly
conforms. Anything else (a violation, a float where an integer is wanted, a keyword it does not
know) answers ``False``, and the caller runs the real validator, which then also writes the
error message. So the subset can only make valid values faster, never let an invalid one pass:
every check here is at least as strict as jsonschema's.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

# Keywords that say nothing about validity (annotations) and may be ignored. ``format`` is one
# too: every caller builds its validator without a format checker, so jsonschema ignores it.
_ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "$schema",
        "format",
        "readOnly",
        "writeOnly",
        "x-workspace",  # ours (config_schema.py): whether a workspace file may set the key
    }
)
# Keywords this module checks; a schema using any other keyword is left to jsonschema.
_CHECKED = frozenset(
    {
        "type",
        "enum",
        "const",
        "properties",
        "additionalProperties",
        "required",
        "items",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "pattern",
        "anyOf",
    }
)
_KNOWN = _ANNOTATIONS | _CHECKED
_PATTERNS: dict[str, re.Pattern[str]] = {}
_LIMITS: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
    ("minimum", operator.ge),
    ("maximum", operator.le),
    ("exclusiveMinimum", operator.gt),
    ("exclusiveMaximum", operator.lt),
)


def _is_type(value: Any, name: str) -> bool:
    # bool is an int subclass in Python but never an integer or number in JSON Schema. A float
    # with an integral value is an "integer" to jsonschema; answering False defers that case.
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "null":
        return value is None
    return False


def _plain(value: Any) -> bool:
    """A value whose ``==`` and ``in`` agree with JSON equality (no bool/number mix-ups)."""
    return isinstance(value, str) or value is None


def _numbers_ok(schema: dict[str, Any], value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return True  # the bounds apply to numbers only
    for key, holds in _LIMITS:
        if key in schema:
            limit = schema[key]
            if isinstance(limit, bool) or not isinstance(limit, (int, float)):
                return False
            if not holds(value, limit):
                return False
    return True


def _strings_ok(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, str):
        return True
    if "minLength" in schema and len(value) < schema["minLength"]:
        return False
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return False
    if "pattern" in schema:
        source = schema["pattern"]
        pattern = _PATTERNS.get(source)
        if pattern is None:
            try:
                pattern = _PATTERNS[source] = re.compile(source)
            except re.error:  # an ECMA-only or broken pattern: jsonschema decides, as before
                return False
        if pattern.search(value) is None:
            return False
    return True


def _object_ok(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, dict):
        return True
    required = schema.get("required", [])
    if not isinstance(required, list) or any(key not in value for key in required):
        return False
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    if not isinstance(properties, dict):
        return False
    for key, item in value.items():
        if key in properties:
            if not _valid(properties[key], item):
                return False
        elif extra is False:
            return False
        elif extra is not True and not _valid(extra, item):
            return False
    return True


def _array_ok(schema: dict[str, Any], value: Any) -> bool:
    if not isinstance(value, list):
        return True
    if "minItems" in schema and len(value) < schema["minItems"]:
        return False
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return False
    items = schema.get("items", True)
    return items is True or all(_valid(items, item) for item in value)


def certainly_valid(schema: Any, value: Any) -> bool:
    """Whether ``value`` certainly conforms to ``schema``.

    The schema's shape is checked first, all of it (not only the parts this value reaches): a
    keyword in a form of another draft (``required: true``) anywhere sends the value to jsonschema.

    Args:
        schema: a JSON Schema (Draft 2020-12) as parsed JSON.
        value: the instance, as parsed JSON or TOML.

    Returns:
        True when the value conforms. False when it does not, or when the schema uses a keyword
        or a case this subset does not decide: the caller then asks ``jsonschema``.
    """
    return _shape_ok(schema) and _valid(schema, value)


def _valid(schema: Any, value: Any) -> bool:
    if schema is True:
        return True
    if not isinstance(schema, dict) or not _KNOWN.issuperset(schema):
        return False
    if "type" in schema:
        kinds = schema["type"]
        names = [kinds] if isinstance(kinds, str) else kinds
        if not isinstance(names, list) or not any(_is_type(value, n) for n in names):
            return False
    if "enum" in schema:
        if not _plain(value) or not isinstance(schema["enum"], list):
            return False
        if not any(_plain(option) and option == value for option in schema["enum"]):
            return False
    if "const" in schema and not (_plain(value) and value == schema["const"]):
        return False
    # anyOf holds when one branch certainly does (one branch certainly valid is enough).
    if "anyOf" in schema and not any(_valid(sub, value) for sub in schema["anyOf"]):
        return False
    return (
        _numbers_ok(schema, value)
        and _strings_ok(schema, value)
        and _object_ok(schema, value)
        and _array_ok(schema, value)
    )


# Schemas seen and found well formed, by id; the schema is held so its id cannot be reused. The
# schemas are few and long-lived (the config schema, the tools' manifests).
_WELL_FORMED: dict[int, Any] = {}
_MAX_REMEMBERED = 512
_NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COUNT_KEYS = ("minLength", "maxLength", "minItems", "maxItems")


def _shape_ok(schema: Any) -> bool:
    if _WELL_FORMED.get(id(schema)) is schema:
        return True
    if not _well_formed(schema):
        return False
    if len(_WELL_FORMED) >= _MAX_REMEMBERED:
        _WELL_FORMED.clear()
    _WELL_FORMED[id(schema)] = schema
    return True


def _well_formed(schema: Any) -> bool:
    """Every keyword, at every depth, known and in its Draft 2020-12 form."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict) or not _KNOWN.issuperset(schema):
        return False
    kinds = schema.get("type", [])
    names = [kinds] if isinstance(kinds, str) else kinds
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return False
    for key in _NUMBER_KEYS:
        limit = schema.get(key, 0)
        if isinstance(limit, bool) or not isinstance(limit, (int, float)):
            return False
    for key in _COUNT_KEYS:
        count = schema.get(key, 0)
        if isinstance(count, bool) or not isinstance(count, int):
            return False
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(k, str) for k in required):
        return False
    if not isinstance(schema.get("enum", []), list) or not isinstance(
        schema.get("pattern", ""), str
    ):
        return False
    properties = schema.get("properties", {})
    if not isinstance(properties, dict):
        return False
    branches = schema.get("anyOf", [True])
    if not isinstance(branches, list) or not branches:
        return False
    subschemas = [*properties.values(), schema.get("additionalProperties", True)]
    subschemas.append(schema.get("items", True))
    return all(_well_formed(sub) for sub in [*subschemas, *branches])
