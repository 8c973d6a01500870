"""The session's totals in the app survive ``--continue`` (issue 27): the status bar's tokens,
``/cost`` and the ``[ui] status_line`` JSON (a real script that dumps its stdin) carry what the
earlier run spent and the lines its edits changed; ``/undo`` takes a turn's lines back out at once.
A real agent on the fake LLM server, a real session file, real files in a git repository."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_tui.agent.resume import attach_app
from agent_tui.build import build_agent
from agent_tui.config import load_config
from agent_tui.ui.app import AgentApp
from agent_tui.ui.widgets.notes import MarkdownNote
from agent_tui.ui.widgets.status_bar import StatusBar
from tests.agent.conftest import FAKE_KEY_ENV
from tests.checkpoints.conftest import make_repo
from tests.fakes.llm_server import FakeLLM
from tests.ui.app_helpers import send_clear, send_turns
from tests.ui.helpers import send, wait_idle, wait_until
from tests.ui.test_rewind_app import create, edit

HAIKU = "claude-haiku-4-5"  # $1 in, $5 out per million (agent/pricing.py)
DUMP = "import sys; open(sys.argv[1], 'w').write(sys.stdin.read()); print('ok')"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(FAKE_KEY_ENV, "sk-fake")
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    make_repo(ws, {"x.txt": b"one\n"})
    script = tmp_path / "dump.py"
    script.write_text(DUMP, encoding="utf-8")
    command = f"{sys.executable} {script} {tmp_path / 'state.json'}"
    (tmp_path / "rc").write_text(f"[ui]\nstatus_line = {command!r}\n", encoding="utf-8")
    return ws


def app_for(workspace: Path, fake: FakeLLM, *, cont: bool) -> AgentApp:
    """The app as ``agent-tui`` (or ``--continue``) starts it, on a priced model, edits unasked."""
    model = {"provider": "anthropic", "base_url": fake.url, "name": HAIKU}
    config = load_config(
        workspace,
        cli={
            "model": {**model, "api_key_env": FAKE_KEY_ENV, "max_retries": 0},
            "tools": {"auto_approve": True},
        },
        env={},
        user_file=workspace.parent / "rc",
    )
    agent = build_agent(config)
    return AgentApp(agent, session=attach_app(agent, cont=cont, resume_id=None))


def usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {"usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def status_state(workspace: Path) -> dict[str, Any]:
    path = workspace.parent / "state.json"
    return json.loads(path.read_text()) if path.exists() and path.read_text() else {}


def lines_of(state: dict[str, Any]) -> tuple[int, int] | None:
    cost = state.get("cost")
    return (cost["total_lines_added"], cost["total_lines_removed"]) if cost else None


SPENT_USD = (100_000 + 1_000 + 10 + 10) * 1e-6 + (10_000 + 100 + 1 + 1) * 5e-6


async def test_continue_carries_tokens_money_and_lines_and_undo_takes_lines_out(
    workspace: Path,
) -> None:
    script = [
        {**create("1", "new.txt", "a\nb\nc\n"), **usage(100_000, 10_000)},
        {"text": "made it", **usage(1_000, 100)},
        {**edit("2", "x.txt", "one", "ONE\nUNO"), **usage(10, 1)},
        {"text": "edited", **usage(10, 1)},
        {"text": "never asked"},
    ]
    with FakeLLM(script) as fake:
        first = app_for(workspace, fake, cont=False)
        async with first.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "make a file")
            await wait_until(pilot, lambda: lines_of(status_state(workspace)) == (3, 0), "3 lines")
            await send_turns(pilot, "edit x")
            await wait_until(pilot, lambda: lines_of(status_state(workspace)) == (5, 1), "+2 -1")
            await send(pilot, "/undo")  # the second turn's edit of x.txt
            await wait_idle(pilot)
            await wait_until(pilot, lambda: lines_of(status_state(workspace)) == (3, 0), "undone")
        assert (workspace / "x.txt").read_text() == "one\n"
        (workspace.parent / "state.json").unlink()

        app = app_for(workspace, fake, cont=True)
        async with app.run_test(size=(110, 36)) as pilot:
            await wait_until(pilot, lambda: bool(status_state(workspace)), "the status line run")
            state = status_state(workspace)
            assert lines_of(state) == (3, 0)
            assert state["cost"]["total_cost_usd"] == pytest.approx(SPENT_USD)
            assert state["context_window"]["total_input_tokens"] == 101_020
            assert state["context_window"]["total_output_tokens"] == 10_102
            bar = app.query_one(StatusBar)
            assert (bar.input_tokens, bar.output_tokens) == (101_020, 10_102)
            assert bar.cost_usd == pytest.approx(SPENT_USD)
            await send_turns(pilot, "/cost")
            await wait_until(pilot, lambda: len(app.query(MarkdownNote)) == 1, "the /cost card")
            [card] = [note.text for note in app.query(MarkdownNote)]  # type: ignore[attr-defined]
            assert "| session | 101,020 | 10,102 | 0 | 0 | $0.1515 |" in card
            assert "Edits: 3 lines added, 0 removed" in card
        assert len(fake.requests) == 4  # the continued app asked the model nothing


async def test_clear_starts_the_new_session_at_zero_and_undo_clear_brings_the_figures_back(
    workspace: Path,
) -> None:
    script = [{"text": "spent", **usage(1_000, 100)}]
    with FakeLLM(script) as fake:
        app = app_for(workspace, fake, cont=False)
        async with app.run_test(size=(110, 36)) as pilot:
            await send_turns(pilot, "spend")
            bar = app.query_one(StatusBar)
            assert (bar.input_tokens, bar.output_tokens) == (1_000, 100)
            await send_clear(pilot, "y")
            assert (bar.input_tokens, bar.output_tokens, bar.cost_usd) == (0, 0, None)
            await send_turns(pilot, "/cost")
            await wait_until(pilot, lambda: len(app.query(MarkdownNote)) == 1, "the /cost card")
            [card] = [note.text for note in app.query(MarkdownNote)]  # type: ignore[attr-defined]
            assert "| session | 0 | 0 | 0 | 0 | $0.0000 |" in card
            await send(pilot, "/undo-clear")
            await wait_until(pilot, lambda: bar.input_tokens == 1_000, "the old figures")
            assert bar.cost_usd == pytest.approx(1_000e-6 + 100 * 5e-6)
