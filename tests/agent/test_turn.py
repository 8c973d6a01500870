"""plan_turn: @participant routing, /command expansion, #references, and errors before sending."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.actions import Clear
from agent_tui.agent.turn import plan_turn, resolve_tool_names
from agent_tui.errors import UsageError
from tests.participants.agent_double import (
    READ_ONLY_TOOLS,
    AgentDouble,
    isolated_workspace,
    make_agent,
)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return isolated_workspace(tmp_path, monkeypatch)


@pytest.fixture
def agent(workspace: Path) -> AgentDouble:
    return make_agent(workspace)


async def test_plain_text_goes_to_the_default_agent_with_every_tool(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "  fix the failing test  ")

    assert plan.text == "fix the failing test"
    assert plan.participant == "" and plan.command == ""
    assert plan.tool_names is None
    assert plan.references == ()
    assert plan.local_result is None
    assert "You are agent-tui" in plan.system_prompt


async def test_workspace_participant_offers_only_read_only_tools(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "@workspace where is the config loaded?")

    assert plan.participant == "workspace"
    assert plan.text == "where is the config loaded?"
    assert plan.tool_names is not None
    assert set(plan.tool_names) == READ_ONLY_TOOLS
    offered = agent.deps.tools.enabled(plan.tool_names)
    assert offered and all(m.read_only for m in offered)
    assert "You are @workspace" in plan.system_prompt
    assert "path:line" in plan.system_prompt


async def test_terminal_participant_gets_the_terminal_tools(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "@terminal how do I list open ports?")

    assert plan.tool_names == ("run_in_terminal", "get_terminal_output", "read_file")
    assert "You are @terminal" in plan.system_prompt


async def test_unknown_participant_errors_listing_the_known_ones(agent: AgentDouble) -> None:
    with pytest.raises(UsageError) as caught:
        await plan_turn(agent, "@wrokspace explain this")

    message = str(caught.value)
    assert "@wrokspace" in message
    assert "@workspace" in message and "@terminal" in message


async def test_an_at_sign_later_in_the_text_is_not_a_participant(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "email me@example.com about @workspace")

    assert plan.participant == ""
    assert plan.text == "email me@example.com about @workspace"


async def test_participant_command_expands_its_template(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "@workspace /explain the config loader")

    assert plan.command == "explain"
    assert plan.participant == "workspace"
    assert plan.text.startswith("Explain how this works in this codebase: the config loader")
    assert "$ARGUMENTS" not in plan.text
    assert set(plan.tool_names or ()) == READ_ONLY_TOOLS


async def test_participant_command_without_the_participant_says_where_it_lives(
    agent: AgentDouble,
) -> None:
    with pytest.raises(UsageError, match=r"@workspace /tests"):
        await plan_turn(agent, "/tests the parser")


async def test_unknown_command_errors(agent: AgentDouble) -> None:
    with pytest.raises(UsageError, match=r"unknown command /frobnicate.*see /help"):
        await plan_turn(agent, "/frobnicate now")


async def test_a_path_is_not_a_command(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "/usr/bin/env python3 fails with ENOENT")

    assert plan.command == ""
    assert plan.text == "/usr/bin/env python3 fails with ENOENT"


async def test_local_commands_return_their_result_without_a_prompt(agent: AgentDouble) -> None:
    cleared = await plan_turn(agent, "/clear")
    helped = await plan_turn(agent, "/help")

    assert cleared.local_result is not None and cleared.local_result.action == Clear()
    assert cleared.command == "clear"
    assert helped.local_result is not None
    assert "| `/help` |" in helped.local_result.message


async def test_global_commands_work_after_a_participant(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "@workspace /clear")

    assert plan.local_result is not None and plan.local_result.action == Clear()


async def test_terminal_explain_attaches_the_last_command(agent: AgentDouble) -> None:
    agent.deps.session.last_command = {
        "command": "pytest -x",
        "output": "E   AssertionError: 1 != 2\n1 failed",
        "exit_code": 1,
    }

    plan = await plan_turn(agent, "@terminal /explain")

    assert [r.label for r in plan.references] == ["#terminalLastCommand"]
    assert "$ pytest -x" in plan.references[0].text
    assert "exit code: 1" in plan.references[0].text


async def test_terminal_explain_before_any_command_errors(agent: AgentDouble) -> None:
    with pytest.raises(UsageError, match="no command has run"):
        await plan_turn(agent, "@terminal /explain")


async def test_missing_file_fails_before_anything_is_planned(agent: AgentDouble) -> None:
    with pytest.raises(UsageError, match=r"#file:nope\.py.*no such file"):
        await plan_turn(agent, "look at #file:nope.py please")


async def test_tool_reference_adds_a_hint_to_the_system_prompt(agent: AgentDouble) -> None:
    ref = agent.deps.tools.manifest("grep_search").tool_reference_name

    plan = await plan_turn(agent, f"find the callers #{ref}")

    assert [(r.kind, r.label, r.text) for r in plan.references] == [("tool", f"#{ref}", "")]
    assert "use these tools in this turn: `grep_search`" in plan.system_prompt
    assert plan.text == f"find the callers #{ref}"


async def test_tool_reference_outside_the_participants_tools_errors(agent: AgentDouble) -> None:
    ref = agent.deps.tools.manifest("run_in_terminal").tool_reference_name

    with pytest.raises(UsageError, match=r"@workspace cannot use run_in_terminal"):
        await plan_turn(agent, f"@workspace run the tests #{ref}")


async def test_tool_reference_to_a_disabled_tool_errors(agent: AgentDouble) -> None:
    agent.deps.tools.disabled.add("fetch_webpage")
    ref = agent.deps.tools.manifest("fetch_webpage").tool_reference_name

    with pytest.raises(UsageError, match="disabled"):
        await plan_turn(agent, f"read the docs #{ref}")


async def test_hash_words_that_name_nothing_stay_text(agent: AgentDouble) -> None:
    plan = await plan_turn(agent, "see issue #123 and the C# #define, not a reference")

    assert plan.references == ()
    assert plan.text == "see issue #123 and the C# #define, not a reference"


async def test_the_same_file_twice_is_attached_once(agent: AgentDouble, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n", encoding="utf-8")

    plan = await plan_turn(agent, "#file:a.py and again #file:a.py")

    assert [r.label for r in plan.references] == ["#file:a.py"]


async def test_participant_alone_is_nothing_to_send(agent: AgentDouble) -> None:
    with pytest.raises(UsageError, match="nothing to send"):
        await plan_turn(agent, "@workspace")


async def test_prompt_file_routes_to_its_participant_and_narrows_tools(
    agent: AgentDouble, workspace: Path
) -> None:
    prompts = workspace / ".agent" / "prompts"
    prompts.mkdir(parents=True)
    (workspace / "notes.txt").write_text("remember the milk\n", encoding="utf-8")
    (prompts / "review.prompt.md").write_text(
        "---\ndescription: Review a file\nparticipant: workspace\ntools: [read_file, grep_search]\n"
        "---\nReview $ARGUMENTS against #file:notes.txt\n",
        encoding="utf-8",
    )
    agent = make_agent(workspace)

    plan = await plan_turn(agent, "/review the parser")

    assert plan.command == "review"
    assert plan.participant == "workspace"
    assert plan.tool_names == ("read_file", "grep_search")
    assert plan.text == "Review the parser against #file:notes.txt"
    assert [r.label for r in plan.references] == ["#file:notes.txt"]
    assert "remember the milk" in plan.references[0].text


async def test_prompt_file_tools_cannot_widen_a_participant(
    agent: AgentDouble, workspace: Path
) -> None:
    prompts = workspace / ".agent" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "sneaky.prompt.md").write_text(
        "---\ntools: [read_file, run_in_terminal]\n---\nDo $ARGUMENTS\n", encoding="utf-8"
    )
    agent = make_agent(workspace)

    plan = await plan_turn(agent, "@workspace /sneaky it")

    assert plan.tool_names == ("read_file",)


async def test_user_participant_routes_with_its_prompt_tools_and_commands(
    workspace: Path,
) -> None:
    agent = make_agent(
        workspace,
        agentrc=(
            "[[participants]]\n"
            'name = "docs"\n'
            'description = "Writes documentation"\n'
            'prompt = "You write docs in plain English."\n'
            'tools = ["tag:read", "create_file"]\n'
            "[[participants.commands]]\n"
            'name = "readme"\n'
            'description = "Draft a README section"\n'
            'prompt = "Draft a README section about $ARGUMENTS."\n'
        ),
    )

    plan = await plan_turn(agent, "@docs /readme installation")

    assert plan.participant == "docs"
    assert plan.text == "Draft a README section about installation."
    assert "You write docs in plain English." in plan.system_prompt
    assert plan.tool_names is not None and "create_file" in plan.tool_names
    assert "run_in_terminal" not in plan.tool_names


def test_resolve_tool_names_expands_tags_and_reference_names(agent: AgentDouble) -> None:
    tools = agent.deps.tools
    read_ref = tools.manifest("read_file").tool_reference_name
    tagged = [m.name for m in tools.manifests() if "read" in m.tags]

    names = resolve_tool_names(tools, [read_ref, "tag:read", "mcp_later_tool"])

    assert names[0] == "read_file"
    assert set(tagged) <= set(names)
    assert names[-1] == "mcp_later_tool"  # kept: an MCP server may connect later
    assert len(names) == len(set(names))
