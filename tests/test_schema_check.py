"""The fast schema check may only ever accept what jsonschema accepts (agent_tui/schema_check.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_tui.config_schema import SCHEMA
from agent_tui.schema_check import certainly_valid
from agent_tui.tools.registry import builtin_registry

ROOT = Path(__file__).resolve().parents[1]


def _jsonschema_accepts(schema: dict[str, Any], value: Any) -> bool:
    cls = jsonschema.validators.validator_for(schema)
    return not list(cls(schema).iter_errors(value))


def _tool_schemas() -> list[dict[str, Any]]:
    return [manifest.input_schema for manifest in builtin_registry().manifests()]


JSON_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5000),
    st.floats(-2, 700, allow_nan=False),
    st.sampled_from(["", "x", "git status", "all", "anthropic", "http://h", "a b", "1", "dark"]),
)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(
                [
                    "model",
                    "name",
                    "provider",
                    "max_tokens",
                    "path",
                    "command",
                    "tools",
                    "agent",
                    "max_rounds",
                    "auto_approve",
                    "pattern",
                    "offset",
                    "limit",
                    "timeout_s",
                    "ui",
                    "theme",
                    "participants",
                    "query",
                    "url",
                    "nmae",
                    "mcp",
                    "servers",
                    "args",
                ]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)


# Shapes MCP servers send: formats (ignored without a format checker), older drafts, nullables.
EXTRA_SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "scopes": {
                "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
            },
            "url": {"anyOf": [{"type": "string", "minLength": 3}, {"type": "null"}]},
        },
    },
    {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}},
    {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 0, "exclusiveMinimum": True}},
    },
    {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"path": {"type": ["string", "null"]}, "max_rounds": {"enum": [1, True]}},
        "required": ["path"],
        "additionalProperties": {"type": "boolean"},
    },
]


@settings(max_examples=400, deadline=None)
@given(value=JSON_VALUES)
def test_the_fast_check_never_accepts_what_jsonschema_rejects(value: Any) -> None:
    for schema in [SCHEMA, *_tool_schemas(), *EXTRA_SCHEMAS]:
        if certainly_valid(schema, value):
            assert _jsonschema_accepts(schema, value), (schema, value)


@pytest.mark.parametrize(
    "value",
    [
        {"model": {"max_tokens": True}},  # bool is not an integer
        {"model": {"temperature": False}},
        {"model": {"provider": 1}},
        {"model": {"max_tokens": 0}},
        {"model": {"timeout_s": 0}},  # exclusiveMinimum
        {"model": {"base_url": "ftp://x"}},
        {"model": {"name": ""}},
        {"model": {"nmae": "x"}},
        {"participants": [{"description": "no name"}]},
        {"tools": {"terminal": {"auto_approve": {"git status": "yes"}}}},
        {"agent": {"max_rounds": 1001}},
    ],
)
def test_invalid_configs_are_left_to_jsonschema(value: Any) -> None:
    assert not _jsonschema_accepts(SCHEMA, value)
    assert not certainly_valid(SCHEMA, value)


def test_float_for_integer_and_unknown_keywords_are_left_to_jsonschema() -> None:
    # jsonschema counts 3.0 as an integer; the fast check does not decide and defers.
    assert not certainly_valid({"type": "integer"}, 3.0)
    assert not certainly_valid({"type": "integer", "multipleOf": 2}, 3)
    assert not certainly_valid({"type": "object", "$ref": "#/$defs/x"}, {})
    # draft-04's boolean exclusiveMinimum and draft-03's boolean required are left too.
    assert not certainly_valid({"minimum": 1, "exclusiveMinimum": True}, 1)
    assert not certainly_valid({"properties": {"a": {"required": True}}}, {})
    # A pattern Python cannot compile (ECMA syntax) is not an exception here either.
    assert not certainly_valid({"type": "string", "pattern": "\\p{L}+("}, "abc")
    # anyOf holds when one branch certainly does (the oauth `scopes` key: a string or a list).
    scopes = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    assert certainly_valid(scopes, "read") and certainly_valid(scopes, ["a", "b"])
    assert not certainly_valid(scopes, 3) and not certainly_valid(scopes, ["a", 1])
    assert not certainly_valid({"anyOf": []}, "a")  # malformed: jsonschema decides


def test_the_common_valid_cases_are_decided_without_jsonschema() -> None:
    example = tomllib.loads((ROOT / ".agentrc.example").read_text())
    assert certainly_valid(SCHEMA, example)
    assert certainly_valid(SCHEMA, {"model": {"provider": "openai", "name": "gpt-4.1"}})
    read_file = builtin_registry().manifest("read_file").input_schema
    assert certainly_valid(read_file, {"path": "main.py"})
