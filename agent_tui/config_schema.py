"""The JSON Schema of .agentrc (every key that exists; .agentrc.example documents each)."""

from __future__ import annotations

from typing import Any

_BOOL_MAP = {"type": "object", "additionalProperties": {"type": "boolean"}}

MODEL: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "provider": {"enum": ["anthropic", "openai", "scripted"]},
        "name": {"type": "string", "minLength": 1},
        "base_url": {"type": "string", "pattern": "^https?://"},
        "api_key_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        "transport": {"enum": ["httpx", "sdk"]},
        "max_tokens": {"type": "integer", "minimum": 1},
        "context_window": {"type": "integer", "minimum": 1000},
        "thinking_budget": {"type": "integer", "minimum": 0},
        "reasoning_effort": {"enum": ["minimal", "low", "medium", "high"]},
        "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        "script": {"type": "string"},
        "chunk_delay_s": {"type": "number", "minimum": 0, "maximum": 1},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0},
        "max_retries": {"type": "integer", "minimum": 0, "maximum": 10},
    },
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "model": MODEL,
        # Named alternatives offered by /model: [models.fast] provider = ..., name = ...
        "models": {"type": "object", "additionalProperties": MODEL},
        "agent": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "max_rounds": {"type": "integer", "minimum": 1, "maximum": 1000},
                "instructions_files": {"type": "array", "items": {"type": "string"}},
            },
        },
        "tools": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "auto_approve": {"type": "boolean"},
                "disabled": {"type": "array", "items": {"type": "string"}},
                "eligible_for_auto_approval": _BOOL_MAP,
                "terminal": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "auto_approve": _BOOL_MAP,
                        "shell": {"type": "string"},
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 600},
                        # What commands inherit (tools/terminal_env.py); trust-gated with [tools].
                        "env": {
                            "type": "object",
                            "additionalProperties": False,
                            "properties": {
                                "inherit": {"enum": ["all", "core", "none"]},
                                "ignore_default_excludes": {"type": "boolean"},
                                "exclude": {"type": "array", "items": {"type": "string"}},
                                "include_only": {"type": "array", "items": {"type": "string"}},
                                "set": {
                                    "type": "object",
                                    "additionalProperties": {"type": "string"},
                                },
                            },
                        },
                    },
                },
                "urls": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"auto_approve": _BOOL_MAP},
                },
                "fetch": {  # fetch_webpage: per-operation timeout and per-page size cap
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "timeout_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 300},
                        "max_bytes": {"type": "integer", "minimum": 1024},
                    },
                },
                "edits": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"auto_approve": _BOOL_MAP},
                },
            },
        },
        "mcp": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "connect_timeout_s": {"type": "number", "exclusiveMinimum": 0},
                # What ${input:ID} in a server entry asks for (VS Code's promptString inputs).
                "inputs": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "description": {"type": "string"},
                            "password": {"type": "boolean"},
                            "default": {"type": "string"},
                        },
                    },
                },
                # ID = "value": read only from the user's ~/.agentrc (config.USER_ONLY).
                "input_values": {"type": "object", "additionalProperties": {"type": "string"}},
                "servers": {
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {
                            "type": {"enum": ["stdio", "http", "sse"]},
                            "command": {"type": "string"},
                            "args": {"type": "array", "items": {"type": "string"}},
                            "env": {"type": "object", "additionalProperties": {"type": "string"}},
                            "cwd": {"type": "string"},
                            "url": {"type": "string"},
                            "headers": {
                                "type": "object",
                                "additionalProperties": {"type": "string"},
                            },
                            "disabled": {"type": "boolean"},
                        },
                    },
                },
            },
        },
        "participants": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_-]*$"},
                    "description": {"type": "string"},
                    "prompt": {"type": "string"},
                    "prompt_file": {"type": "string"},
                    "tools": {"type": "array", "items": {"type": "string"}},
                    "commands": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["name"],
                            "properties": {
                                "name": {"type": "string"},
                                "description": {"type": "string"},
                                "prompt": {"type": "string"},
                            },
                        },
                    },
                },
            },
        },
        "ui": {
            "type": "object",
            "additionalProperties": False,
            "properties": {"theme": {"enum": ["dark", "light"]}},
        },
    },
}

# Keys a workspace .agentrc may set only once the user trusts the folder (DESIGN §5).
TRUST_GATED = ("tools", "mcp")
