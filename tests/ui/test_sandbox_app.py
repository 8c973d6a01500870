"""The sandbox in the app (Pilot, real bwrap): the status bar names it, what it stops becomes a
question with the usual keys, and a lasting answer is a grant that the next command uses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_tui.build import build_agent
from agent_tui.sandbox.bwrap import availability
from tests.fakes.llm_server import FakeLLM
from tests.helpers import QuietHandler, serve_http, tool_results
from tests.ui.app_helpers import fake_anthropic_config, running_app, send_to_approval
from tests.ui.helpers import wait_idle


class _Hello(QuietHandler):
    def do_GET(self) -> None:
        self.send_json(200, {"hello": "through the proxy"})


@pytest.fixture
def sandboxed(monkeypatch: pytest.MonkeyPatch) -> None:
    found = availability()
    if not found.ok:
        pytest.skip(f"the sandbox cannot run here: {found.reason}")
    monkeypatch.delenv("AGENT_TUI_SANDBOX", raising=False)


def _fetch(url: str) -> str:
    # NO_PROXY names 127.0.0.1 (servers inside the sandbox): cleared to go through the proxy.
    return (
        'NO_PROXY= no_proxy= python3 -c "import os, urllib.request as u; print(u.build_opener('
        "u.ProxyHandler({'http': os.environ['HTTP_PROXY']})).open("
        f"'{url}', timeout=5).read().decode())\""
    )


@pytest.mark.usefixtures("sandboxed")
async def test_a_blocked_domain_asked_and_allowed_for_the_session_is_reached_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    with serve_http(_Hello) as url:
        call = {"name": "run_in_terminal", "input": {"command": _fetch(url)}}
        fake_llm.set_script(
            [
                {"tool_calls": [{"id": "c1", **call}]},
                {"tool_calls": [{"id": "c2", **call}]},  # the grant now covers it: no question
                {"text": "done"},
            ]
        )
        agent = build_agent(fake_anthropic_config(tmp_path, monkeypatch, fake_llm, ws))
        async with running_app(agent) as (app, pilot):
            assert "sandbox: workspace-write" in str(app.status.render())
            await send_to_approval(pilot, "fetch it")
            dialog = app.screen
            assert "Allow network access to 127.0.0.1?" in str(dialog.query_one("#title").render())
            assert "network: 127.0.0.1 not allowed" in str(dialog.query_one("#why").render())
            await pilot.press("s")
            await wait_idle(pilot)
        await agent.aclose()  # the sandbox's network namespace and proxy go with the session
    results = tool_results(fake_llm.requests[-1])
    assert "Ran again with 127.0.0.1 allowed" in results["c1"]
    assert '"through the proxy"' in results["c1"] and '"through the proxy"' in results["c2"]
    assert "not allowed" not in results["c2"]
    grants = [g for g in agent.deps.approvals.grants.grants() if g.tool == "sandbox.network"]
    assert [(g.scope.value, g.pattern) for g in grants] == [("session", "127.0.0.1")]


@pytest.mark.usefixtures("sandboxed")
async def test_a_write_outside_asked_and_allowed_always_runs_outside_next_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_llm: FakeLLM
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = tmp_path / "outside.txt"
    call = {"name": "run_in_terminal", "input": {"command": f"echo line >> {target}"}}
    fake_llm.set_script(
        [
            {"tool_calls": [{"id": "c1", **call}]},
            {"tool_calls": [{"id": "c2", **call}]},
            {"text": "ok"},
        ]
    )
    agent = build_agent(fake_anthropic_config(tmp_path, monkeypatch, fake_llm, ws))
    async with running_app(agent) as (app, pilot):
        await send_to_approval(pilot, "append")
        assert "Run this command outside the sandbox?" in str(
            app.screen.query_one("#title").render()
        )
        await pilot.press("a")
        await wait_idle(pilot)
    await agent.aclose()
    # Once blocked, then run outside; the second call matched the stored grant and ran outside.
    assert target.read_text() == "line\nline\n"
    stored = json.loads((tmp_path / "state" / "approvals.json").read_text())["grants"]
    assert [(g["tool"], g["scope"]) for g in stored] == [("sandbox.outside", "always")]
    assert stored[0]["pattern"].startswith("/^echo")
