"""Instructions files join the system prompt; the base prompt stays within its size budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.agent.instructions import (
    MAX_INSTRUCTIONS_CHARS,
    base_prompt,
    compose_system_prompt,
    load_instructions,
    loaded_instructions,
)
from agent_tui.agent.turn import plan_turn
from agent_tui.config import load_config
from tests.participants.agent_double import isolated_workspace, make_agent, make_tools


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolated_workspace(tmp_path, monkeypatch)


def test_no_instructions_files_means_just_the_base_prompt(workspace: Path) -> None:
    system = compose_system_prompt(workspace)

    assert system.startswith(base_prompt())
    assert "Instructions from the workspace" not in system
    assert loaded_instructions(workspace) == []


def test_all_three_instructions_files_are_added_in_order(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("Use tabs. Run `make check`.\n", encoding="utf-8")
    (workspace / "CLAUDE.md").write_text("Never touch vendor/.\n", encoding="utf-8")
    (workspace / ".github").mkdir()
    (workspace / ".github" / "copilot-instructions.md").write_text("Prefer pathlib.\n")

    system = compose_system_prompt(workspace)

    assert loaded_instructions(workspace) == [
        "AGENTS.md",
        "CLAUDE.md",
        ".github/copilot-instructions.md",
    ]
    agents = system.index('<instructions file="AGENTS.md">\nUse tabs. Run `make check`.')
    claude = system.index('<instructions file="CLAUDE.md">\nNever touch vendor/.')
    copilot = system.index('<instructions file=".github/copilot-instructions.md">\nPrefer pathlib.')
    assert system.index(base_prompt()) < agents < claude < copilot


async def test_instructions_reach_every_participants_system_prompt(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("The test command is `tox -e py`.", encoding="utf-8")
    agent = make_agent(workspace)

    default = await plan_turn(agent, "hello")
    scoped = await plan_turn(agent, "@workspace where are tests?")

    for plan in (default, scoped):
        assert "The test command is `tox -e py`." in plan.system_prompt
    # The participant's prompt comes after the project's instructions.
    assert scoped.system_prompt.index("tox -e py") < scoped.system_prompt.index(
        "You are @workspace"
    )


def test_an_edited_instructions_file_applies_on_the_next_turn(workspace: Path) -> None:
    path = workspace / "AGENTS.md"
    path.write_text("first version", encoding="utf-8")
    assert "first version" in compose_system_prompt(workspace)

    path.write_text("second version", encoding="utf-8")

    system = compose_system_prompt(workspace)
    assert "second version" in system and "first version" not in system


def test_configured_instructions_files_replace_the_defaults(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("default file", encoding="utf-8")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "AI.md").write_text("configured file", encoding="utf-8")
    (workspace / ".agentrc").write_text('[agent]\ninstructions_files = ["docs/AI.md"]\n')
    config = load_config(workspace, env={}, user_file=workspace.parent / "none")

    system = compose_system_prompt(workspace, config)

    assert "configured file" in system and "default file" not in system
    assert loaded_instructions(workspace, config) == ["docs/AI.md"]


def test_instructions_outside_the_workspace_are_not_read(workspace: Path) -> None:
    secret = workspace.parent / "id_rsa"
    secret.write_text("PRIVATE KEY", encoding="utf-8")
    (workspace / "AGENTS.md").symlink_to(secret)

    assert load_instructions(workspace) == []
    assert "PRIVATE KEY" not in compose_system_prompt(workspace)


def test_empty_and_huge_instructions_files(workspace: Path) -> None:
    (workspace / "AGENTS.md").write_text("   \n", encoding="utf-8")
    (workspace / "CLAUDE.md").write_text("y" * (MAX_INSTRUCTIONS_CHARS + 5000), encoding="utf-8")

    found = load_instructions(workspace)

    assert [f.path for f in found] == ["CLAUDE.md"]
    assert found[0].truncated
    assert len(found[0].text) < MAX_INSTRUCTIONS_CHARS + 200


def test_base_prompt_and_tool_schemas_fit_the_size_budget(workspace: Path) -> None:
    """prompts/system.md stays short, and with every tool schema under 15,000 characters."""
    system = compose_system_prompt(workspace)
    specs = make_tools().specs()
    schemas = json.dumps(
        [
            {"name": s.name, "description": s.description, "input_schema": s.input_schema}
            for s in specs
        ]
    )

    assert len(base_prompt()) <= 3_000
    assert len(specs) >= 12
    assert len(system) + len(schemas) <= 15_000, (len(system), len(schemas))


def test_tool_hints_name_the_tools_for_this_turn(workspace: Path) -> None:
    system = compose_system_prompt(workspace, tool_hints=("grep_search", "read_file"))

    assert system.endswith(
        "The user asked you to use these tools in this turn: `grep_search`, `read_file`."
    )


async def test_instructions_leading_outside_are_skipped_and_said_once(
    workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("KEY-MATERIAL-9\n")
    (workspace / "AGENTS.md").write_text("Use tabs.\n")
    (workspace / "CLAUDE.md").symlink_to(secret)
    agentrc = '[agent]\ninstructions_files = ["AGENTS.md", "CLAUDE.md", "../outside/id_rsa"]\n'
    agent = make_agent(workspace, agentrc=agentrc)

    first = await plan_turn(agent, "hello")
    second = await plan_turn(agent, "again")

    assert "Use tabs." in first.system_prompt and "KEY-MATERIAL-9" not in first.system_prompt
    assert first.notices == (
        f"CLAUDE.md not used as instructions: it leads to {secret}, outside the workspace",
        f"../outside/id_rsa not used as instructions: it leads to {secret}, outside the workspace",
    )
    assert second.notices == ()  # once per session
