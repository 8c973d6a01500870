"""Quitting at any moment (issue 11 §5): silent, exit 0, and what the app started is stopped.

Before the fix, Ctrl+C twice mid-stream or with a dialog open crashed the app on the way out
(``MountError`` / ``NoMatches`` from the cancelled turn drawing into removed widgets); Pilot's
``run_test`` re-raises such an exception, so these tests fail on it.
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.conversation import ToolResultBlock
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.assistant import AssistantMessage
from agent_tui.ui.widgets.prompt_input import PromptInput
from agent_tui.ui.widgets.tool_card import ToolCard
from tests.helpers import missing
from tests.ui.app_helpers import running_app, send_to_approval
from tests.ui.conftest import MakeAgent
from tests.ui.helpers import send, wait_until

NOTE_CALL = {"id": "call_1", "name": "write_note", "input": {"path": "n.txt", "content": "hi"}}
LONG_ANSWER = "streaming words " * 300


def process_gone(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return True
    return "State:\tZ" in status.read_text(encoding="utf-8", errors="replace")


async def quit_with_ctrl_c_twice(pilot: object, app: AgentApp) -> None:
    await pilot.press("ctrl+c")  # type: ignore[attr-defined]
    assert app.is_running  # the first one only warns
    await pilot.press("ctrl+c")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: not app.is_running, "the app to exit")  # type: ignore[arg-type]


async def test_ctrl_c_twice_while_text_streams_exits_0_without_error(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": LONG_ANSWER}], chunk_delay=0.01)
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "talk")
        await wait_until(pilot, lambda: app.query(AssistantMessage), "the answer to stream")
        await quit_with_ctrl_c_twice(pilot, app)
    assert app.return_code == 0


async def test_ctrl_q_while_text_streams_exits_0_without_error(make_agent: MakeAgent) -> None:
    h = make_agent([{"text": LONG_ANSWER}], chunk_delay=0.01)
    async with running_app(h.agent) as (app, pilot):
        await send(pilot, "talk")
        await wait_until(pilot, lambda: app.query(AssistantMessage), "the answer to stream")
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0


async def test_quit_with_the_approval_dialog_open_exits_0_and_answers_the_call(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([{"text": "Writing.", "tool_calls": [NOTE_CALL]}, {"text": "never"}])
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "write a note")
        await quit_with_ctrl_c_twice(pilot, app)
    assert app.return_code == 0
    assert not (h.workspace / "n.txt").exists()
    # The agent's cleanup ran (not left to the garbage collector): the call has its result.
    results = [
        b
        for m in h.agent.conversation.messages
        for b in m.content
        if isinstance(b, ToolResultBlock)
    ]
    assert [r.tool_use_id for r in results] == ["call_1"]


async def test_quit_while_a_command_runs_kills_it_and_exits_0(
    make_agent: MakeAgent, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    run = {
        "id": "t1",
        "name": "run_in_terminal",
        "input": {"command": f"echo $$ > {pid_file}; exec sleep 120", "explanation": "wait"},
    }
    h = make_agent([{"tool_calls": [run]}, {"text": "never"}], builtin=True)
    async with running_app(h.agent) as (app, pilot):
        await send_to_approval(pilot, "wait a while", "y")
        await wait_until(pilot, lambda: pid_file.exists() and pid_file.read_text(), "the pid")
        pid = int(pid_file.read_text())
        assert app.query_one(ToolCard).state.status == "running"
        await quit_with_ctrl_c_twice(pilot, app)
    assert app.return_code == 0
    assert process_gone(pid)


async def test_ctrl_c_clears_a_non_empty_prompt_before_it_counts_towards_quitting(
    make_agent: MakeAgent,
) -> None:
    h = make_agent([])
    async with running_app(h.agent) as (app, pilot):
        prompt = app.query_one(PromptInput)
        prompt.load_text("half a thought")
        await pilot.press("ctrl+c")
        assert prompt.text == ""
        await pilot.press("ctrl+c")  # the prompt is empty now: this one warns
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0


async def test_quit_mid_stream_stops_the_mcp_servers(make_agent: MakeAgent, tmp_path: Path) -> None:
    import sys

    from agent_tui.mcp.session import create_mcp
    from tests.mcp.test_lifecycle import children_running

    try:
        import mcp_server_time  # noqa: F401
    except ImportError:
        missing("mcp-server-time is not installed: install the dev extra")
    (tmp_path / "home" / ".agentrc").write_text(
        f'[mcp.servers.time]\ncommand = "{sys.executable}"\n'
        'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\n',
        encoding="utf-8",
    )
    h = make_agent([{"text": LONG_ANSWER}], chunk_delay=0.01)
    deps = h.agent.deps
    deps.mcp = create_mcp(deps.config, deps.tools, deps.commands, grants=deps.approvals.grants)
    assert deps.mcp is not None
    async with running_app(h.agent) as (app, pilot):
        await wait_until(pilot, lambda: children_running("mcp_server_time"), "the MCP server")
        await send(pilot, "talk")
        await wait_until(pilot, lambda: app.query(AssistantMessage), "the answer to stream")
        await quit_with_ctrl_c_twice(pilot, app)
    assert app.return_code == 0
    assert children_running("mcp_server_time") == []
