"""Built-in commands: UI actions, and /help built from the registries."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui import actions
from agent_tui.agent.turn import plan_turn
from agent_tui.commands.builtin import BUILTIN_COMMANDS
from agent_tui.commands.registry import CommandResult, SlashCommand
from agent_tui.errors import UsageError
from tests.participants.agent_double import AgentDouble, isolated_workspace, make_agent


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolated_workspace(tmp_path, monkeypatch)


@pytest.fixture
def agent(workspace: Path) -> AgentDouble:
    return make_agent(workspace)


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("/clear", actions.Clear()),
        ("/new", actions.New()),
        ("/exit", actions.Exit()),
        ("/tools", actions.OpenToolPicker()),
        ("/model", actions.PickModel()),
        ("/model fast", actions.PickModel("fast")),
    ],
)
async def test_ui_commands_return_their_action(
    agent: AgentDouble, text: str, action: actions.UiAction
) -> None:
    plan = await plan_turn(agent, text)

    assert plan.local_result == CommandResult(action=action)
    assert plan.text == ""


def test_every_builtin_is_registered(agent: AgentDouble) -> None:
    for command in BUILTIN_COMMANDS:
        assert agent.deps.commands.get(command.name) is command


async def test_help_lists_commands_participants_references_and_instructions(
    workspace: Path,
) -> None:
    (workspace / "AGENTS.md").write_text("Be brief.", encoding="utf-8")
    agent = make_agent(workspace)

    plan = await plan_turn(agent, "/help")

    assert plan.local_result is not None
    text = plan.local_result.message
    for name in ("help", "clear", "new", "model", "tools", "exit"):
        assert f"| `/{name}" in text
    assert "| `@workspace` |" in text and "| `@terminal` |" in text
    assert "`@workspace /explain <symbol, file or question>`" in text
    assert "`@terminal /explain [question]`" in text
    assert "`#file:path[:start-end]`" in text and "`#changes`" in text
    assert "`#terminalLastCommand`" in text
    assert "Added to the system prompt: `AGENTS.md`" in text


async def test_help_follows_the_registry(agent: AgentDouble) -> None:
    async def handler(ctx: object, args: str) -> CommandResult:
        return CommandResult(message="pong")

    agent.deps.commands.register(
        SlashCommand("ping", "Check | that pipes are escaped", handler, source="user")
    )

    plan = await plan_turn(agent, "/help")

    assert plan.local_result is not None
    assert "| `/ping` | Check \\| that pipes are escaped | user |" in plan.local_result.message


async def test_help_says_when_no_instructions_file_was_found(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "/help")

    assert plan.local_result is not None
    assert "None found at the workspace root (looked for AGENTS.md" in plan.local_result.message


@pytest.mark.parametrize("text", ["/clear", "/new", "/model fast", "/tools", "/copy", "/exit"])
async def test_app_only_actions_are_refused_under_p(agent: AgentDouble, text: str) -> None:
    # Before, /clear /new /model under -p did nothing and exited 0; now they say why (exit 2).
    agent.interactive = False  # type: ignore[attr-defined]

    with pytest.raises(UsageError, match="works only in the app"):
        await plan_turn(agent, text)
