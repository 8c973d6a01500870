"""The JSON Schema of .agentrc (every key that exists; .agentrc.example documents each).

Each key also says, once, whether a workspace's own ``.agentrc`` may set it (CONVENTIONS: "every
new config key is decided once"): the annotation ``WORKSPACE`` on its schema node is

- ``"any"``: applied from a workspace file at once;
- ``"trusted"``: applied only once the user trusts the folder (DESIGN §5) — everything that runs
  or approves something, and every key that decides where requests go or which secret is sent;
- ``"never"``: only the user's ``~/.agentrc`` may set it, however trusted the folder.

A node without one inherits its parent's decision; every top-level section and every model key
carries one explicitly (a test checks it), so a new key there cannot slip in undecided.
``config.workspace_layer`` applies the decisions. jsonschema ignores the annotation.
"""

from __future__ import annotations

from typing import Any

WORKSPACE = "x-workspace"
ANY, TRUSTED, NEVER = "any", "trusted", "never"

_BOOL_MAP = {"type": "object", "additionalProperties": {"type": "boolean"}}

MODEL: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        # Where requests go and which secret is sent: a cloned repository must not choose them.
        "provider": {
            "enum": ["anthropic", "openai", "azure-openai", "scripted"],
            WORKSPACE: TRUSTED,
        },
        "base_url": {"type": "string", "pattern": "^https?://", WORKSPACE: TRUSTED},
        "api_key_env": {
            "type": "string",
            "pattern": "^[A-Za-z_][A-Za-z0-9_]*$",
            WORKSPACE: TRUSTED,
        },
        "transport": {"enum": ["httpx", "sdk"], WORKSPACE: TRUSTED},  # azure-openai: always sdk
        # Which of the openai provider's wire formats (path on the same endpoint, same key): a
        # workspace cannot send anything elsewhere with it, only make requests fail.
        "wire_api": {"enum": ["chat", "responses"], WORKSPACE: ANY},
        # Tuning the model the user already chose: harmless from a workspace.
        "vision": {"type": "boolean", WORKSPACE: ANY},
        "name": {"type": "string", "minLength": 1, WORKSPACE: ANY},
        "max_tokens": {"type": "integer", "minimum": 1, WORKSPACE: ANY},
        "context_window": {"type": "integer", "minimum": 1000, WORKSPACE: ANY},
        "thinking_budget": {"type": "integer", "minimum": 0, WORKSPACE: ANY},
        "reasoning_effort": {"enum": ["minimal", "low", "medium", "high"], WORKSPACE: ANY},
        "temperature": {"type": "number", "minimum": 0, "maximum": 2, WORKSPACE: ANY},
        "script": {"type": "string", WORKSPACE: ANY},  # read only by the scripted provider
        "chunk_delay_s": {"type": "number", "minimum": 0, "maximum": 1, WORKSPACE: ANY},
        "timeout_s": {"type": "number", "exclusiveMinimum": 0, WORKSPACE: ANY},
        "max_retries": {"type": "integer", "minimum": 0, "maximum": 10, WORKSPACE: ANY},
        # Reading calls from the model's text: every such call still meets the approvals, and
        # "auto" never turns it on for the hosted APIs, so a workspace may choose it.
        "text_tool_calls": {"enum": ["auto", "off"], WORKSPACE: ANY},
        # Only asks the server already configured to count: nothing new is reached or run.
        "count_tokens": {"enum": ["auto", "off"], WORKSPACE: ANY},
    },
}

HOOK_EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PreCompact",
)
_HOOK_EVENT: dict[str, Any] = {  # Claude Code's settings.json shape, as TOML arrays of tables
    "type": "array",
    "items": {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "matcher": {"type": "string"},
            "hooks": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["command"],
                    "properties": {
                        "type": {"enum": ["command"]},
                        "command": {"type": "string", "minLength": 1},
                        "timeout": {"type": "number", "exclusiveMinimum": 0},
                    },
                },
            },
        },
    },
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "model": {**MODEL, WORKSPACE: ANY},
        # Named alternatives offered by /model: [models.fast] provider = ..., name = ...; each
        # inherits what it leaves out from [model]. Its endpoint keys are gated as [model]'s.
        "models": {"type": "object", "additionalProperties": MODEL, WORKSPACE: ANY},
        "agent": {
            WORKSPACE: ANY,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "max_rounds": {"type": "integer", "minimum": 1, "maximum": 1000},
                "instructions_files": {"type": "array", "items": {"type": "string"}},
                # Compaction: when the summary replaces older turns; it goes to the model already
                # chosen, so a workspace may tune it like max_rounds.
                "compact_at": {"type": "number", "minimum": 0, "maximum": 1, WORKSPACE: ANY},
                "compact_keep": {"type": "integer", "minimum": 1, "maximum": 100, WORKSPACE: ANY},
                # A budget in US dollars: the user's own limit, so a workspace's .agentrc must not
                # loosen it before it is trusted.
                "max_cost": {"type": "number", "exclusiveMinimum": 0, WORKSPACE: TRUSTED},
            },
        },
        "tools": {
            WORKSPACE: TRUSTED,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "auto_approve": {"type": "boolean"},
                "disabled": {"type": "array", "items": {"type": "string"}},
                # Longer tool results reach the model as start + end, the whole saved to a file.
                "max_result_chars": {"type": "integer", "minimum": 2000},
                # Tool search (toolsearch/): the share of the window tool schemas may take before
                # the rest wait behind tool_search, and tools offered up front all the same.
                "search_threshold": {"type": "number", "minimum": 0, "maximum": 1},
                "always_offer": {"type": "array", "items": {"type": "string"}},
                "eligible_for_auto_approval": _BOOL_MAP,
                "terminal": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "auto_approve": _BOOL_MAP,
                        # ls, cat, grep, git status… on workspace files run unasked (safe_commands.py)
                        "safe_commands": {"type": "boolean"},
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
        # Web search: where queries go and which key is sent, so only a trusted folder's apply.
        "web": {
            WORKSPACE: TRUSTED,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                # off | provider (the model API's own search: Anthropic, OpenAI Responses) |
                # searxng | brave (the web_search function tool with that engine)
                "search": {"enum": ["off", "provider", "searxng", "brave"]},
                "searxng_url": {"type": "string", "pattern": "^https?://"},
                "brave_url": {"type": "string", "pattern": "^https?://"},
                "api_key_env": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                "max_results": {"type": "integer", "minimum": 1, "maximum": 10},
                "max_uses": {"type": "integer", "minimum": 1, "maximum": 20},  # provider
            },
        },
        "mcp": {
            WORKSPACE: TRUSTED,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "connect_timeout_s": {"type": "number", "exclusiveMinimum": 0},
                # How long a request waits for servers still starting (0: not at all).
                "startup_wait_s": {"type": "number", "minimum": 0},
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
                # ID = "value": secrets, read only from the user's ~/.agentrc.
                "input_values": {
                    "type": "object",
                    "additionalProperties": {"type": "string"},
                    WORKSPACE: NEVER,
                },
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
                            "sandbox": {"type": "boolean"},  # stdio: inside the sandbox
                            # A pre-registered OAuth client. Inherits "trusted" like `headers`:
                            # the secret goes only to the server's own authorization server, and
                            # can be `${input:ID}` so its value stays in ~/.agentrc.
                            "oauth": {
                                "type": "object",
                                "additionalProperties": False,
                                "properties": {
                                    "client_id": {"type": "string"},
                                    "client_secret": {"type": "string"},
                                    "client_metadata_url": {
                                        "type": "string",
                                        "pattern": "^https://",
                                    },
                                    "grant": {"enum": ["authorization_code", "client_credentials"]},
                                    "private_key_file": {"type": "string"},
                                    "signing_algorithm": {"type": "string"},
                                    "scopes": {
                                        "anyOf": [
                                            {"type": "string"},
                                            {"type": "array", "items": {"type": "string"}},
                                        ]
                                    },
                                },
                            },
                            # A tool call's bound; each progress notification restarts it.
                            "call_timeout_s": {"type": "number", "exclusiveMinimum": 0},
                        },
                    },
                },
            },
        },
        # Language servers for diagnostics after edits (agent_tui/lsp/). A server entry starts a
        # process: a workspace sets one only once trusted. Waiting and turning the PATH defaults
        # off only change what the model is told.
        "lsp": {
            WORKSPACE: ANY,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "wait_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 60},
                "start_s": {"type": "number", "exclusiveMinimum": 0, "maximum": 120},
                "defaults": {"type": "boolean"},
                "servers": {
                    WORKSPACE: TRUSTED,
                    "type": "object",
                    "additionalProperties": {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["command", "patterns"],
                        "properties": {
                            "command": {
                                "type": "array",
                                "minItems": 1,
                                "items": {"type": "string", "minLength": 1},
                            },
                            "patterns": {
                                "type": "array",
                                "items": {"type": "string", "minLength": 1},
                            },
                            "sandbox": {"type": "boolean"},  # inside the command sandbox
                            "disabled": {"type": "boolean"},
                        },
                    },
                },
            },
        },
        # Hooks run commands: a workspace's apply only once the folder is trusted.
        "hooks": {
            WORKSPACE: TRUSTED,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "read_claude_settings": {"type": "boolean"},
                **{event: _HOOK_EVENT for event in HOOK_EVENTS},
            },
        },
        "participants": {
            WORKSPACE: ANY,
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
        # What commands may reach: a workspace may loosen it only once the user trusts the folder.
        "sandbox": {
            WORKSPACE: TRUSTED,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "mode": {"enum": ["workspace-write", "read-only", "off"]},
                "ask": {"type": "boolean"},
                "required": {"type": "boolean"},
                "network": {"type": "boolean"},
                "writable": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "deny_read": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "allow_domains": {
                    "type": "array",
                    "items": {"type": "string", "pattern": "^(\\*\\.)?[A-Za-z0-9.-]+$"},
                },
            },
        },
        # Whether /undo can work and how much of the user's disk it uses: the user's call.
        "checkpoints": {
            WORKSPACE: NEVER,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "enabled": {"type": "boolean"},
                "max_mb": {"type": "number", "minimum": 0},
                "max_file_mb": {"type": "number", "minimum": 0},
            },
        },
        # Deleting old sessions is the user's call: a cloned repository must not shorten it.
        "sessions": {
            WORKSPACE: NEVER,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "keep": {"type": "integer", "minimum": 1},
                "keep_days": {"type": "number", "minimum": 0},
            },
        },
        "ui": {
            WORKSPACE: ANY,
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "theme": {"enum": ["dark", "light"]},
                # Only how the user is told a turn ended: harmless from a workspace.
                "notify": {"enum": ["off", "bell", "desktop"], WORKSPACE: ANY},
                # A shell command run each time the state changes: a workspace's only once trusted.
                "status_line": {"type": "string", "minLength": 1, WORKSPACE: TRUSTED},
                # The user's own hands, not the project's: a cloned repository rebinding Enter or
                # Esc (or turning on vi modes) would make keys do what the person did not mean.
                # Action names and keys are checked by the app (ui/keymap.py), with a notice.
                "keys": {
                    WORKSPACE: NEVER,
                    "type": "object",
                    "additionalProperties": {
                        "anyOf": [
                            {"type": "string"},
                            {"type": "array", "items": {"type": "string"}},
                        ]
                    },
                },
                "vim": {"type": "boolean", WORKSPACE: NEVER},
            },
        },
    },
}
