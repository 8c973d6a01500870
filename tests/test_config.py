"""Layered .agentrc config: merge order, validation messages, trust gating, the example file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from agent_tui.config import load_config
from agent_tui.config_schema import SCHEMA
from agent_tui.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def load(ws: Path, user: str | None = None, **kw: Any):  # type: ignore[no-untyped-def]
    user_file = ws.parent / "user.agentrc"
    if user is not None:
        user_file.write_text(user)
    return load_config(ws, user_file=user_file, env=kw.pop("env", {}), **kw)


def test_layers_merge_in_order_defaults_user_workspace_env_cli(ws: Path) -> None:
    (ws / ".agentrc").write_text('[model]\nname = "ws-model"\nmax_tokens = 100\n')
    cfg = load(ws, '[model]\nprovider = "openai"\nname = "user-model"\ntimeout_s = 5\n')
    assert (cfg.model.provider, cfg.model.name, cfg.model.max_tokens, cfg.model.timeout_s) == (
        "openai",
        "ws-model",
        100,
        5,
    )
    cfg = load(ws, env={"AGENT_TUI_MODEL": "env-model"})
    assert cfg.model.name == "env-model"
    cfg = load(ws, env={"AGENT_TUI_MODEL": "env-model"}, cli={"model": {"name": "cli-model"}})
    assert cfg.model.name == "cli-model"
    assert cfg.model.base_url == "https://api.openai.com/v1"  # provider default filled in


def test_switching_provider_on_the_command_line_drops_the_other_apis_model(ws: Path) -> None:
    cfg = load(
        ws,
        '[model]\nprovider = "anthropic"\nname = "claude-opus-4-5"\n',
        cli={"model": {"provider": "openai"}},
    )
    assert (cfg.model.provider, cfg.model.name, cfg.model.api_key_env) == (
        "openai",
        "gpt-4.1",
        "OPENAI_API_KEY",
    )


def test_provider_follows_the_key_in_the_environment(ws: Path) -> None:
    assert load(ws, env={"OPENAI_API_KEY": "k"}).model.provider == "openai"
    assert load(ws, env={"ANTHROPIC_API_KEY": "k"}).model.provider == "anthropic"


@pytest.mark.parametrize(
    ("text", "key", "reason"),
    [
        ("[model\nname = 1", None, "not valid TOML"),
        ('[model]\nnmae = "x"\n', "model.nmae", "unknown key"),
        ('[model]\nprovider = "gemini"\n', "model.provider", "is not one of"),
        ('[model]\nmax_tokens = "lots"\n', "model.max_tokens", "is not of type 'integer'"),
        ('[model]\nreasoning_effort = "max"\n', "model.reasoning_effort", "is not one of"),
        (
            '[tools.terminal.auto_approve]\n"git status" = "yes"\n',
            "tools.terminal.auto_approve.git status",
            "is not of type 'boolean'",
        ),
        ('[[participants]]\ndescription = "no name"\n', "participants.0", "'name' is a required"),
    ],
)
def test_a_bad_file_names_the_file_the_key_and_the_reason(
    ws: Path, text: str, key: str | None, reason: str
) -> None:
    (ws / ".agentrc").write_text(text)
    with pytest.raises(ConfigError) as info:
        load(ws)
    err = info.value
    assert err.file == str(ws / ".agentrc")
    assert err.key == key
    assert reason in str(err)


def test_untrusted_workspace_cannot_set_approvals_or_mcp(ws: Path) -> None:
    (ws / ".agentrc").write_text(
        '[model]\nname = "m"\n[tools]\nauto_approve = true\n[mcp.servers.x]\ncommand = "evil"\n'
    )
    cfg = load(ws, trusted=False)
    assert cfg.model.name == "m"  # models may be set at once
    assert cfg.section("tools", "auto_approve") is False
    assert cfg.section("mcp") is None
    assert set(cfg.ignored_untrusted) == {"tools", "mcp"}
    trusted = load(ws, trusted=True)
    assert trusted.section("tools", "auto_approve") is True
    assert trusted.section("mcp", "servers", "x", "command") == "evil"


def test_user_file_tools_apply_without_trust(ws: Path) -> None:
    cfg = load(ws, "[tools]\nauto_approve = true\n", trusted=False)
    assert cfg.section("tools", "auto_approve") is True


def _schema_keys(schema: dict[str, Any], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    props = schema.get("properties", {})
    for name, sub in props.items():
        path = f"{prefix}{name}"
        keys.add(path)
        keys |= _schema_keys(sub, path + ".")
        if isinstance(sub.get("items"), dict):
            keys |= _schema_keys(sub["items"], path + "[].")
        if isinstance(sub.get("additionalProperties"), dict):
            keys |= _schema_keys(sub["additionalProperties"], path + ".*.")
    return keys


def test_example_file_is_valid_and_documents_every_key() -> None:
    text = (ROOT / ".agentrc.example").read_text()
    from agent_tui.config import _validate

    _validate(tomllib.loads(text), ".agentrc.example")
    missing = sorted(k for k in _schema_keys(SCHEMA) if k.split(".")[-1].strip("[]*") not in text)
    assert missing == []


def test_relative_script_paths_name_files_in_the_workspace(ws: Path) -> None:
    (ws / ".agentrc").write_text(
        '[model]\nprovider = "scripted"\nscript = "s.json"\n'
        '[models.replay]\nprovider = "scripted"\nscript = "other/r.json"\n'
    )
    cfg = load(ws)
    assert cfg.model.script == str(ws / "s.json")
    assert cfg.models["replay"].script == str(ws / "other" / "r.json")  # /model uses these too
