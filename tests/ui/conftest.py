"""Fixtures for the UI tests: a real Agent on the scripted provider in a temp workspace.

The edit tool used here (``write_note``) is registered through ``ToolRegistry.register``, the same
call MCP and user-defined tools use, so these tests do not depend on the built-in tools' progress.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.loop import Agent, AgentDeps
from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.config import load_config
from agent_tui.tools.base import (
    BaseTool,
    Confirmation,
    Manifest,
    Prepared,
    SessionState,
    ToolContext,
    ToolResult,
)
from agent_tui.tools.registry import ToolRegistry, builtin_registry

NOTE_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    "required": ["path", "content"],
    "additionalProperties": False,
}
WRITE_NOTE = Manifest(
    name="write_note",
    display_name="Write note",
    tool_reference_name="writeNote",
    user_description="Write a text file in the workspace",
    model_description="Writes `content` to `path` (relative to the workspace).",
    input_schema=NOTE_SCHEMA,
    kind="edit",
)
LOOK = Manifest(
    name="look_around",
    display_name="Look around",
    tool_reference_name="lookAround",
    user_description="List nothing in particular",
    model_description="Returns a fixed string.",
    input_schema={"type": "object", "properties": {}},
    kind="read",
)


class WriteNoteTool(BaseTool):
    """A small real edit tool: writes the file, returns a diff for the card."""

    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        path = ctx.resolve(input["path"])
        diff = f"--- /dev/null\n+++ {input['path']}\n@@ -0,0 +1 @@\n+{input['content']}"
        return Prepared(
            f"Writing {input['path']}",
            f"Wrote {input['path']}",
            Confirmation(f"Write {input['path']}?", f"```diff\n{diff}\n```"),
            paths=(path,),
        )

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = ctx.resolve(input["path"])
        path.write_text(input["content"], encoding="utf-8")
        diff = f"--- /dev/null\n+++ {input['path']}\n@@ -0,0 +1 @@\n+{input['content']}"
        return ToolResult(f"wrote {input['path']}", display=diff)


class LookTool(BaseTool):
    def prepare(self, input: dict[str, Any], ctx: ToolContext) -> Prepared:
        return Prepared("Looking around", "Looked around")

    async def invoke(self, input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("nothing to see")


@dataclass
class Harness:
    agent: Agent
    provider: Any
    workspace: Path


MakeAgent = Callable[..., Harness]


@pytest.fixture
def make_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MakeAgent:
    """Build an Agent whose provider replays ``turns`` (the shared script format)."""
    from agent_tui.providers.scripted import ScriptedProvider
    from agent_tui.registries import default_registries

    state = tmp_path / "state"
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(state))
    monkeypatch.setenv("HOME", str(home))
    workspace = tmp_path / "ws"
    workspace.mkdir()

    def build(
        turns: list[dict[str, Any]], *, chunk_delay: float = 0, builtin: bool = False
    ) -> Harness:
        config = load_config(workspace, env={}, user_file=home / ".agentrc")
        tools = builtin_registry() if builtin else ToolRegistry()
        tools.register(WRITE_NOTE, WriteNoteTool)
        tools.register(LOOK, LookTool)
        commands, participants = default_registries(config)
        provider = ScriptedProvider(turns, chunk_delay=chunk_delay)
        deps = AgentDeps(
            config=config,
            provider=provider,
            tools=tools,
            approvals=ApprovalEngine(config, workspace, state_dir=state),
            workspace=workspace,
            session=SessionState(cwd=workspace),
            commands=commands,
            participants=participants,
        )
        return Harness(Agent(deps), provider, workspace)

    return build


@pytest.fixture
def asking_agent(make_agent: MakeAgent, tmp_path: Path) -> MakeAgent:
    """``make_agent`` with read-only commands asked about too (``safe_commands = false``): for
    tests of the approval dialog and its grants that use ``ls`` or ``cat``."""
    (tmp_path / "home" / ".agentrc").write_text("[tools.terminal]\nsafe_commands = false\n")
    return make_agent


@pytest.fixture(autouse=True)
def _frozen_status_clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Snapshots show the status bar's elapsed times as 0s, however slow the machine is."""
    if "snap_compare" in request.fixturenames:
        monkeypatch.setattr("agent_tui.ui.app.DEFAULT_CLOCK", lambda: 1000.0)


@pytest.fixture(autouse=True)
def _questions_take_keys_at_once(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Questions (approval, trust, plan offer...) take keys as soon as they open, so tests about
    something else can answer at once; the tests of the guard itself (``key_guard.QUIET_S``) ask
    for ``typing_guard`` and step the app's clock instead."""
    if "typing_guard" not in request.fixturenames:
        monkeypatch.setattr("agent_tui.ui.key_guard.QUIET_S", 0.0)


@pytest.fixture
def typing_guard() -> None:
    """Keep the questions' real wait for a pause in typing (see ``_questions_take_keys_at_once``)."""


@pytest.fixture
async def mcp_harnesses() -> AsyncIterator[list[Harness]]:
    """Harnesses given an McpManager (``app_helpers.attach_mcp``); their servers stop afterwards."""
    made: list[Harness] = []
    yield made
    for harness in made:
        if harness.agent.deps.mcp is not None:
            await harness.agent.deps.mcp.aclose()


async def settle(pilot: Any, rounds: int = 40) -> None:
    """Pause until two screenshots in a row are the same (or ``rounds`` pauses passed).

    Under load (the suite runs on every core) one ``pause`` can end before a deferred layout pass
    (a worker's result, a ``call_after_refresh``); a snapshot taken then would depend on timing. A
    settled screen costs one extra screenshot when it is already still. A blinking cursor never
    settles; such a test turns the blink off, and otherwise this gives up after ``rounds`` pauses.
    """
    last = None
    for _ in range(rounds):
        await pilot.pause()
        shot = pilot.app.export_screenshot()
        if shot == last:
            return
        last = shot


@pytest.fixture
def snap_compare(snap_compare: Callable[..., bool]) -> Callable[..., bool]:
    """pytest-textual-snapshot's ``snap_compare``, taking the screenshot once the screen settled."""

    def compare(
        app: Any, press: Any = (), terminal_size: Any = (80, 24), run_before: Any = None
    ) -> bool:
        async def before(pilot: Any) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if result is not None:
                    await result
            await settle(pilot)

        return snap_compare(app, press=press, terminal_size=terminal_size, run_before=before)

    return compare
