"""``-p "/terminals"`` says it needs the app, as /rewind and /tools do (issue 17 §3).

A ``-p`` run kills its background terminals when it ends, so there is never one to list; the
command is refused with exit 2 before any model request, not sent to the model as text.
"""

from __future__ import annotations

from pathlib import Path

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_cli


def test_terminals_headless_exits_2_and_says_it_needs_the_app(
    tmp_path: Path, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {
        "HOME": str(tmp_path / "home"),
        "AGENT_TUI_STATE_DIR": str(tmp_path / "state"),
        "ANTHROPIC_API_KEY": "k",
    }
    args = ("-p", "/terminals", "--provider", "anthropic", "--base-url", fake_llm.url)
    proc = run_cli(ws, *args, env=env)
    assert proc.returncode == 2
    assert "/terminals works only in the app" in proc.stderr
    assert proc.stdout == ""
    assert fake_llm.requests == []
