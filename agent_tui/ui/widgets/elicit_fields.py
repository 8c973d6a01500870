"""The fields of an MCP elicitation form: read from the requested schema, checked before sending.

The MCP spec limits ``requestedSchema`` to a flat object of primitive properties: strings (with
``minLength``/``maxLength`` and the formats email, uri, date, date-time), numbers and integers
(``minimum``/``maximum``), booleans, single-select enums (``enum`` with optional ``enumNames``, or
``oneOf`` of ``{const, title}``) and multi-select enums (an ``array`` whose ``items`` carry the
options). Anything else cannot be shown as a form: ``parse_schema`` raises ``ValueError``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal
from urllib.parse import urlparse

from agent_tui.plural import plural

FieldKind = Literal["string", "number", "integer", "boolean", "enum", "multi"]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


@dataclass(frozen=True)
class FieldSpec:
    """One property of the requested schema, as the form shows it.

    Args:
        name: the property name (the key in the answer's content).
        kind: which widget edits it.
        title: the label (the schema's ``title``, else the name).
        description: help text under the label.
        required: listed in the schema's ``required``.
        default: the schema's ``default`` (None when absent).
        options: ``(label, value)`` pairs for enum and multi.
        schema: the property's own schema (limits and format are read from it).
    """

    name: str
    kind: FieldKind
    title: str
    description: str
    required: bool
    default: Any
    options: tuple[tuple[str, str], ...]
    schema: dict[str, Any]


def _options(schema: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    choices = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(choices, list):
        return tuple(
            (str(c.get("title", c["const"])), str(c["const"]))
            for c in choices
            if isinstance(c, dict) and "const" in c
        )
    values = [str(v) for v in schema.get("enum", [])]
    names = schema.get("enumNames")
    labels = [str(n) for n in names] if isinstance(names, list) else values
    return tuple(zip(labels, values, strict=False)) if len(labels) == len(values) else ()


def _kind(name: str, schema: dict[str, Any]) -> tuple[FieldKind, tuple[tuple[str, str], ...]]:
    kind = schema.get("type")
    if kind == "array" and isinstance(schema.get("items"), dict):
        options = _options(schema["items"])
        if options:
            return "multi", options
    if kind == "string" and ("enum" in schema or "oneOf" in schema or "anyOf" in schema):
        options = _options(schema)
        if options:
            return "enum", options
    if kind in ("string", "number", "integer", "boolean"):
        return kind, ()
    raise ValueError(f"field {name!r} has a type a form cannot show ({kind!r})")


def parse_schema(schema: dict[str, Any]) -> list[FieldSpec]:
    """The form's fields, in the schema's order.

    Raises:
        ValueError: the schema is not a flat object of the primitive types the spec allows.
    """
    if schema.get("type", "object") != "object" or not isinstance(
        schema.get("properties", {}), dict
    ):
        raise ValueError("the requested schema is not an object with properties")
    required = set(schema.get("required", []))
    fields = []
    for name, prop in schema.get("properties", {}).items():
        if not isinstance(prop, dict):
            raise ValueError(f"field {name!r} has no schema")
        kind, options = _kind(name, prop)
        fields.append(
            FieldSpec(
                name=name,
                kind=kind,
                title=str(prop.get("title") or name),
                description=str(prop.get("description") or ""),
                required=name in required,
                default=prop.get("default"),
                options=options,
                schema=prop,
            )
        )
    return fields


def _check_format(value: str, fmt: str) -> str:
    if fmt == "email" and not _EMAIL.match(value):
        return "not an email address"
    if fmt == "uri":
        parsed = urlparse(value)
        if not (parsed.scheme and (parsed.netloc or parsed.path)):
            return "not a URI (e.g. https://example.com)"
    try:
        if fmt == "date":
            date.fromisoformat(value)
        elif fmt == "date-time":
            datetime.fromisoformat(value)
    except ValueError:
        return f"not a {fmt} (ISO 8601, e.g. 2026-01-31)"
    return ""


def _check_range(value: float, schema: dict[str, Any]) -> str:
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and value < low:
        return f"must be at least {low}"
    if high is not None and value > high:
        return f"must be at most {high}"
    return ""


def coerce_text(spec: FieldSpec, text: str) -> tuple[Any, str]:
    """Turn what the user typed into the field's value.

    Returns:
        (value, "") when valid (value None: left empty and optional); (None, the problem) else.
    """
    text = text.strip()
    if not text:
        return None, "required" if spec.required else ""
    if spec.kind in ("number", "integer"):
        try:
            number: float = int(text) if spec.kind == "integer" else float(text)
        except ValueError:
            return None, f"not {'an integer' if spec.kind == 'integer' else 'a number'}"
        problem = _check_range(number, spec.schema)
        return (None, problem) if problem else (number, "")
    low, high = spec.schema.get("minLength"), spec.schema.get("maxLength")
    if low is not None and len(text) < low:
        return None, f"at least {plural(low, 'character')}"
    if high is not None and len(text) > high:
        return None, f"at most {plural(high, 'character')}"
    problem = _check_format(text, str(spec.schema.get("format", "")))
    return (None, problem) if problem else (text, "")


def check_choices(spec: FieldSpec, chosen: list[str]) -> str:
    """The problem with a multi-select's choices ("" when they are fine or optional and empty)."""
    if not chosen and not spec.required:
        return ""
    low = spec.schema.get("minItems", 1 if spec.required else 0)
    high = spec.schema.get("maxItems")
    if len(chosen) < low:
        return f"choose at least {low}"
    if high is not None and len(chosen) > high:
        return f"choose at most {high}"
    return ""
